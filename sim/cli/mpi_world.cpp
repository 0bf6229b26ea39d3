#include "sim/cli/mpi_world.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifdef C3SIM_HAVE_MPI
#include <mpi.h>
#endif

namespace c3sim::cli {

namespace {

[[maybe_unused]] bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(var) != nullptr) return true;
  }
  return false;
}

// Pieces travel as [index u64][length u64][bytes] records in one buffer per rank.
[[maybe_unused]] void append_u64(std::string& buf, std::uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  buf.append(b, 8);
}

[[maybe_unused]] std::uint64_t read_u64(const char* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

[[maybe_unused]] std::vector<std::pair<std::size_t, std::string>> unpack(const char* p, std::size_t n) {
  std::vector<std::pair<std::size_t, std::string>> out;
  std::size_t at = 0;
  while (at + 16 <= n) {
    const auto index = static_cast<std::size_t>(read_u64(p + at));
    const auto len = static_cast<std::size_t>(read_u64(p + at + 8));
    out.emplace_back(index, std::string(p + at + 16, len));
    at += 16 + len;
  }
  return out;
}

std::vector<std::string> sorted_texts(std::vector<std::pair<std::size_t, std::string>> pieces) {
  std::sort(pieces.begin(), pieces.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  out.reserve(pieces.size());
  for (auto& p : pieces) out.push_back(std::move(p.second));
  return out;
}

}  // namespace

MpiWorld::MpiWorld() {
#ifdef C3SIM_HAVE_MPI
  if (!launched_by_mpi()) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) MPI_Init(nullptr, nullptr);
  active_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
#endif
}

MpiWorld::~MpiWorld() {
#ifdef C3SIM_HAVE_MPI
  if (active_) MPI_Finalize();
#endif
}

bool MpiWorld::any(bool local) const {
#ifdef C3SIM_HAVE_MPI
  if (active_) {
    int in = local ? 1 : 0;
    int out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out != 0;
  }
#endif
  return local;
}

std::vector<std::string> MpiWorld::gather(
    const std::vector<std::pair<std::size_t, std::string>>& local) const {
#ifdef C3SIM_HAVE_MPI
  if (active_) {
    std::string buf;
    for (const auto& [index, text] : local) {
      append_u64(buf, index);
      append_u64(buf, text.size());
      buf += text;
    }
    int mine = static_cast<int>(buf.size());
    std::vector<int> sizes(static_cast<std::size_t>(size_), 0);
    MPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(sizes.size(), 0);
    std::size_t total = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(sizes[r]);
    }
    std::string all(rank_ == 0 ? total : 0, '\0');
    MPI_Gatherv(buf.data(), mine, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    if (rank_ != 0) return {};
    return sorted_texts(unpack(all.data(), all.size()));
  }
#endif
  return sorted_texts(local);
}

}  // namespace c3sim::cli
