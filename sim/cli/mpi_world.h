#pragma once
// The slice of MPI a sweep needs, behind one class so the rest of the CLI never sees mpi.h and
// builds without MPI (C3SIM_HAVE_MPI undefined: always one rank).
//
// MPI starts only when the process was launched by an MPI launcher (mpirun sets
// OMPI_COMM_WORLD_SIZE / PMI_SIZE / PMIX_RANK); a plain `c3sim sweep` never touches MPI.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace c3sim::cli {

class MpiWorld {
public:
  MpiWorld();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  [[nodiscard]] bool active() const { return active_; }

  // True on every rank when any rank passes true (so all ranks agree to stop before gathering).
  [[nodiscard]] bool any(bool local) const;
  // Collects every rank's (index, text) pieces on rank 0, returned sorted by index; other ranks
  // get an empty vector.
  [[nodiscard]] std::vector<std::string> gather(
      const std::vector<std::pair<std::size_t, std::string>>& local) const;

private:
  int rank_ = 0;
  int size_ = 1;
  bool active_ = false;
};

}  // namespace c3sim::cli
