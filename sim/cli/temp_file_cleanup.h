#pragma once
// Removing staged outputs when c3sim is stopped by a signal. StagedOutput writes beside its target
// under a temp name; a normal exit or an exception removes it (the destructor), but SIGINT, SIGTERM
// or SIGHUP end the process without unwinding, which would leave `<target>.c3sim-tmp.<pid>.<n>`
// behind. So each live temp path is registered here, and a handler for those signals unlinks every
// registered path with async-signal-safe calls only, then re-raises the signal with its default
// action (the exit status still says "killed by SIGTERM").
//
// The registry is process-wide state: a signal handler receives no argument but the signal number,
// so what it must clean up can only be reached through a global. It is fixed-size (no allocation in
// the handler) and each slot's path is published by an atomic flag, so the handler never reads a
// half-written path.
#include <csignal>

#include <string>

namespace c3sim::cli {

// Blocks the cleanup signals in the calling thread while alive, so a temp file is never created
// without being registered (create and register inside one such scope).
class CleanupSignalsBlocked {
public:
  CleanupSignalsBlocked();
  ~CleanupSignalsBlocked();
  CleanupSignalsBlocked(const CleanupSignalsBlocked&) = delete;
  CleanupSignalsBlocked& operator=(const CleanupSignalsBlocked&) = delete;

private:
  sigset_t saved_{};  // the thread's mask before
};

// Registers `path` for removal on a fatal signal (installing the handlers on first use, except for
// a signal the process ignores, such as SIGINT in a background job). Returns a slot to unregister,
// or -1 when every slot is taken or the path is too long: the file then still goes on a normal
// exit, only not on a signal.
int register_temp_file(const std::string& path);
// Forgets a slot (after the file was renamed into place or removed). -1 is ignored.
void unregister_temp_file(int slot);

}  // namespace c3sim::cli
