#include "sim/cli/temp_file_cleanup.h"

#include <pthread.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

namespace c3sim::cli {

namespace {

constexpr std::array<int, 3> kCleanupSignals = {SIGINT, SIGTERM, SIGHUP};
// A command stages a handful of outputs at once (-o, --trace); 32 leaves room for any command.
constexpr std::size_t kSlots = 32;
constexpr std::size_t kMaxPath = 4096;

static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler reads the flags");

struct Slot {
  std::atomic<bool> live{false};
  std::array<char, kMaxPath> path{};
};

// Global by necessity (see the header): the handler can reach nothing else.
std::array<Slot, kSlots> g_slots;
std::mutex g_slots_lock;  // serialises register/unregister between threads; never taken by the handler
std::once_flag g_handlers_installed;

extern "C" void remove_temp_files_and_reraise(int signal_number) {
  for (Slot& s : g_slots) {
    if (s.live.load(std::memory_order_acquire)) ::unlink(s.path.data());
  }
  // The default action is back (SA_RESETHAND) and this signal is blocked until the handler returns,
  // so the re-raised signal ends the process as if c3sim had never handled it.
  ::raise(signal_number);
}

void install_handlers() {
  for (int sig : kCleanupSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    if (old.sa_handler == SIG_IGN) continue;  // nohup, background jobs: stay ignored
    if (old.sa_handler != SIG_DFL) continue;  // someone else's handler (e.g. an MPI runtime's)
    struct sigaction act {};
    act.sa_handler = remove_temp_files_and_reraise;
    ::sigemptyset(&act.sa_mask);
    for (int other : kCleanupSignals) ::sigaddset(&act.sa_mask, other);
    act.sa_flags = SA_RESETHAND;
    ::sigaction(sig, &act, nullptr);
  }
}

}  // namespace

CleanupSignalsBlocked::CleanupSignalsBlocked() {
  sigset_t block;
  ::sigemptyset(&block);
  for (int sig : kCleanupSignals) ::sigaddset(&block, sig);
  ::pthread_sigmask(SIG_BLOCK, &block, &saved_);
}

CleanupSignalsBlocked::~CleanupSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

int register_temp_file(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
  std::call_once(g_handlers_installed, install_handlers);
  const std::lock_guard lock(g_slots_lock);
  for (std::size_t i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[i];
    if (s.live.load(std::memory_order_relaxed)) continue;
    std::memcpy(s.path.data(), path.c_str(), path.size() + 1);
    s.live.store(true, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_temp_file(int slot) {
  if (slot < 0 || static_cast<std::size_t>(slot) >= kSlots) return;
  const std::lock_guard lock(g_slots_lock);
  g_slots[static_cast<std::size_t>(slot)].live.store(false, std::memory_order_release);
}

}  // namespace c3sim::cli
