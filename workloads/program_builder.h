#pragma once
// Builds a generated program kernel by kernel in host launch order (the generators in
// program_generators.cpp and dlrm_generator.cpp); done() validates it like a program file.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "workloads/program.h"

namespace c3sim::wl {

class ProgramBuilder {
public:
  ProgramBuilder(std::string name, std::string source, int gpus, std::vector<std::string> streams) {
    p_.name = std::move(name);
    p_.source = std::move(source);
    p_.gpus = gpus;
    for (auto& s : streams) p_.streams.push_back(ProgramStream{std::move(s), 0, std::nullopt, {}});
  }
  void gemm(const std::string& name, const std::string& stream, Gemm g, std::vector<std::string> after = {}) {
    ProgramKernel k = base(name, stream, std::move(after));
    k.kind = KernelKind::gemm;
    k.gemm = std::move(g);
    p_.kernels.push_back(std::move(k));
  }
  void collective(const std::string& name, const std::string& stream, CollectiveOp op, std::int64_t bytes,
                  std::vector<std::string> after = {}) {
    ProgramKernel k = base(name, stream, std::move(after));
    k.kind = KernelKind::collective;
    k.collective = Collective{op, bytes, CollectiveImpl::cu, std::nullopt};
    p_.kernels.push_back(std::move(k));
  }
  void memory(const std::string& name, const std::string& stream, std::int64_t bytes,
              std::vector<std::string> after = {}) {
    ProgramKernel k = base(name, stream, std::move(after));
    k.kind = KernelKind::memory;
    k.memory.bytes = bytes;
    p_.kernels.push_back(std::move(k));
  }
  // The program so far, for additions the kernel calls do not cover (per-rank overrides).
  Program& program() { return p_; }
  Program done() {
    validate_program(p_);
    return p_;
  }

private:
  static ProgramKernel base(const std::string& name, const std::string& stream,
                            std::vector<std::string> after) {
    ProgramKernel k;
    k.name = name;
    k.stream = stream;
    k.after = std::move(after);
    return k;
  }
  Program p_;
};

}  // namespace c3sim::wl
