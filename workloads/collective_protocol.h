#pragma once
// How a collective library runs a collective: the algorithm (the order in which ranks exchange
// blocks) and the protocol (how a channel's stores reach the peer), as NCCL and RCCL name them.
// - ring: every rank sends to the next, one block per step (g - 1 steps per pass);
// - tree: an all-reduce as a reduce up a chain or tree and a broadcast down it;
// - direct: every rank writes each peer's block straight into it (one step per pass).
// - ll: 8-byte stores of 4 data bytes and a 4-byte flag: the receiver polls the flag, so a step
//   needs no handshake, but half of each link byte is flag;
// - ll128: 128-byte lines of 120 data bytes and an 8-byte flag (needs stores that arrive whole);
// - simple: bulk copies into the peer's buffer, one handshake per step, every link byte data.
#include <optional>
#include <string>

#include "sim/base/collective_op.h"

namespace c3sim::wl {

enum class CollectiveAlgorithm { ring, tree, direct };
enum class CollectiveProtocol { ll, ll128, simple };

// The simple protocol first: a tuner keeps it on a tie.
inline constexpr CollectiveProtocol kAllProtocols[] = {CollectiveProtocol::simple, CollectiveProtocol::ll,
                                                       CollectiveProtocol::ll128};

const char* to_string(CollectiveAlgorithm a);
const char* to_string(CollectiveProtocol p);

// The YAML spellings, lower case ("ring", "tree", "direct"; "ll", "ll128", "simple"); nullopt for
// anything else.
std::optional<CollectiveAlgorithm> parse_collective_algorithm(const std::string& s);
std::optional<CollectiveProtocol> parse_collective_protocol(const std::string& s);

// Whether the libraries run `op` with `a`: a tree only reduces all of a buffer (all-reduce); an
// all-to-all sends each peer its own block (direct); the others run as a ring or direct.
bool algorithm_runs(CollectiveAlgorithm a, CollectiveOp op);
// The algorithms `op` runs with, for messages ("ring, tree").
std::string algorithms_of(CollectiveOp op);

// Share of the link bytes that is payload in the protocol's wire format: LL 4 of 8, LL128 120 of
// 128, simple all (its measured overhead, FIFO handshakes, is the hardware file's
// model.collective.protocol_efficiency).
double protocol_payload_share(CollectiveProtocol p);

}  // namespace c3sim::wl
