#pragma once
// Program YAML: what `c3sim run` takes beside scenario files (docs/programs.md is the reference).
// A file holds one program under `program:` or a list under `programs:`:
//
//   program:
//     name: tp_block
//     gpus: 8                          # optional; default every GPU of the node
//     launch_gap_us: 4                 # optional; default the hardware's measured launch gap
//     streams:
//       - {name: compute}
//       - {name: comm, priority: 1, cus: 32}
//     kernels:                         # host launch order
//       - {name: qkv, stream: compute, gemm: {m: 8192, n: 10240, k: 8192, dtype: bf16}}
//       - {name: ar, stream: comm, after: [qkv], collective: {op: all_reduce, bytes: 128 MiB}}
//       - {name: add, stream: compute, after: [ar], memory: {bytes: 256 MiB}, gap_us: 2}
//       - {name: stage, stream: comm, dma_copy: {bytes: 64 MiB, to_peer: true}}
//     policies: [base, sp, "ficco:4"]
//
// A kernel has exactly one of gemm (a Table I tag or {m, n, k, dtype}), collective ({op, bytes,
// impl, max_workgroups}), memory ({bytes, workgroups}) or dma_copy ({bytes, to_peer}).
// Strict: unknown keys, duplicate keys, undefined streams or kernels in `after`, dependency cycles,
// non-positive sizes and duplicate names are InputErrors naming file, line and dotted key.
#include <string>
#include <vector>

#include "sim/base/strict_yaml.h"
#include "workloads/program.h"

namespace c3sim::wl {

// True when the document's top level is a mapping with a `program:` or `programs:` key.
bool is_program_document(const YamlDocument& doc);

std::vector<Program> programs_from_yaml(const YamlDocument& doc);
std::vector<Program> load_programs_file(const std::string& path);
std::vector<Program> load_programs_string(const std::string& text, const std::string& label);

// Emits the `programs:` form; load_programs_string(to_yaml(x)) reproduces x (all fields except the
// source locations). `leading_comments` (whole "# ..." lines) go first, in the same string, so a
// large program (an imported trace's) is not copied to prepend them.
std::string programs_to_yaml(const std::vector<Program>& programs, const std::string& leading_comments = "");
// The same for one program, without copying it into a vector.
std::string program_to_yaml(const Program& program, const std::string& leading_comments = "");

}  // namespace c3sim::wl
