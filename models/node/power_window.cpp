#include "models/node/power_window.h"

#include <cmath>

namespace c3sim::models {

namespace {
// Capacity of the power resource while the average is under the limit: no flow is held by it.
constexpr double kOpen = 1e15;
// Relative margin under which a draw counts as at the limit (the solver's rates are exact only to
// rounding).
constexpr double kAtLimit = 1e-9;
}  // namespace

PowerWindowObserver::PowerWindowObserver(engine::Simulation& sim, engine::ResourceId power, double limit,
                                         double window, double start)
    : power_(power), limit_(limit), window_ps_(window * 1e12), average_(start), integrated_to_(sim.now()) {
  capped_ = average_ >= limit_;
  if (capped_) average_ = limit_;
  sim.solver().set_capacity(power_, capped_ ? limit_ : kOpen, sim.now());
}

void PowerWindowObserver::cancel_pending(engine::Simulation& sim) {
  if (pending_at_ >= 0) sim.cancel(pending_);
  pending_at_ = -1;
}

void PowerWindowObserver::cap(engine::Simulation& sim) {
  capped_ = true;
  average_ = limit_;
  sim.solver().set_capacity(power_, limit_, sim.now());
  sim.solver().solve(sim.now());
  load_ = sim.solver().load(power_);
}

void PowerWindowObserver::settle(engine::Simulation& sim) {
  engine::FluidSolver& solver = sim.solver();
  solver.solve(sim.now());
  load_ = solver.load(power_);
  if (capped_ && load_ < limit_ * (1 - kAtLimit)) {
    // The work in flight draws less than the limit: the clock is free again while the average
    // falls (opening changes no rate: the resource was not holding any flow).
    capped_ = false;
    solver.set_capacity(power_, kOpen, sim.now());
    solver.solve(sim.now());
    load_ = solver.load(power_);
  }
  if (capped_) return;
  if (load_ <= limit_) {
    cancel_pending(sim);
    return;
  }
  if (average_ >= limit_ * (1 - kAtLimit)) {
    cancel_pending(sim);
    cap(sim);
    return;
  }
  // A(t) = P + (A0 - P) exp(-t / window) reaches the limit L at t = window ln((P - A0) / (P - L)).
  const double t = window_ps_ * std::log((load_ - average_) / (load_ - limit_));
  const TimePs at = sim.now() + std::max<TimePs>(1, static_cast<TimePs>(std::ceil(t)));
  if (at == pending_at_) return;
  cancel_pending(sim);
  pending_at_ = at;
  pending_ = sim.at(at, [this, &sim] {
    pending_at_ = -1;
    cap(sim);
  });
}

void PowerWindowObserver::before_step(engine::Simulation& sim, TimePs next) {
  (void)sim;
  if (next <= integrated_to_) return;
  if (capped_) {
    average_ = limit_;
  } else {
    const double dt = static_cast<double>(next - integrated_to_);
    average_ = load_ + (average_ - load_) * std::exp(-dt / window_ps_);
    // The capping event lands on the crossing; rounding must not leave the average above it.
    if (average_ > limit_) average_ = limit_;
  }
  integrated_to_ = next;
}

}  // namespace c3sim::models
