#pragma once
// ASCII case folding for names read from files and traces (NCCL's "RING", a generator's "FSDP"):
// locale-independent, bytes outside A-Z unchanged.
#include <cctype>
#include <string>

namespace c3sim {

inline std::string ascii_lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace c3sim
