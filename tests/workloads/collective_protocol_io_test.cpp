// A collective's algorithm, protocol and channels in program YAML: read, written back, and each bad
// value an InputError naming file, line and key.
#include <gtest/gtest.h>

#include "workloads/program_io.h"

namespace c3sim::wl {
namespace {

std::string program_with(const std::string& collective) {
  return "program:\n  name: p\n  gpus: 2\n  streams: [{name: comm}]\n  kernels:\n"
         "    - {name: ar, stream: comm, collective: {" +
         collective + "}}\n";
}

InputError load_error(const std::string& text) {
  try {
    (void)load_programs_string(text, "p.yaml");
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return InputError({}, "", "");
}

TEST(CollectiveProtocolIo, NamedAlgorithmProtocolAndChannelsRoundTrip) {
  const Program p = load_programs_string(
      program_with("op: all_reduce, bytes: 8 KiB, algorithm: tree, protocol: ll128, channels: 3"),
      "p.yaml")[0];
  const Collective& c = p.kernels[0].collective;
  ASSERT_TRUE(c.algorithm && c.protocol && c.channels);
  EXPECT_EQ(*c.algorithm, CollectiveAlgorithm::tree);
  EXPECT_EQ(*c.protocol, CollectiveProtocol::ll128);
  EXPECT_EQ(*c.channels, 3);
  const Program back = load_programs_string(program_to_yaml(p, ""), "back.yaml")[0];
  EXPECT_EQ(back.kernels[0].collective.algorithm, c.algorithm);
  EXPECT_EQ(back.kernels[0].collective.protocol, c.protocol);
  EXPECT_EQ(back.kernels[0].collective.channels, c.channels);
}

TEST(CollectiveProtocolIo, UnnamedStaysUnsetAndIsNotWritten) {
  const Program p = load_programs_string(program_with("op: all_gather, bytes: 1 MiB"), "p.yaml")[0];
  const Collective& c = p.kernels[0].collective;
  EXPECT_FALSE(c.algorithm || c.protocol || c.channels);
  const std::string yaml = program_to_yaml(p, "");
  EXPECT_EQ(yaml.find("protocol"), std::string::npos) << yaml;
  EXPECT_EQ(yaml.find("algorithm"), std::string::npos) << yaml;
}

TEST(CollectiveProtocolIo, BadValuesNameFileLineAndKey) {
  const struct {
    std::string collective, key, words;
  } cases[] = {
      {"op: all_reduce, bytes: 8 KiB, protocol: LL", "program.kernels[0].collective.protocol",
       "unknown protocol 'LL' (ll, ll128, simple)"},
      {"op: all_reduce, bytes: 8 KiB, algorithm: nvls", "program.kernels[0].collective.algorithm",
       "unknown algorithm 'nvls'"},
      // A tree only reduces a whole buffer; an all-to-all sends every peer its own block.
      {"op: all_gather, bytes: 8 KiB, algorithm: tree", "program.kernels[0].collective.algorithm",
       "all_gather does not run as tree (ring, direct)"},
      {"op: all_to_all, bytes: 8 KiB, algorithm: ring", "program.kernels[0].collective.algorithm",
       "all_to_all does not run as ring (direct)"},
      {"op: all_reduce, bytes: 8 KiB, channels: 0", "program.kernels[0].collective.channels", ""},
      {"op: all_reduce, bytes: 8 KiB, channels: two", "program.kernels[0].collective.channels", ""},
  };
  for (const auto& c : cases) {
    const InputError e = load_error(program_with(c.collective));
    EXPECT_EQ(e.where().file, "p.yaml") << c.key;
    EXPECT_EQ(e.where().line, 6) << c.key;
    EXPECT_EQ(e.key(), c.key) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.words), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace c3sim::wl
