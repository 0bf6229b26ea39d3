#include "models/node/power_window.h"

#include <algorithm>
#include <cmath>

namespace c3sim::models {

namespace {
// Capacity of the power resource at the full clock: no flow is held by it.
constexpr double kOpen = 1e15;
// The clock is re-set when the average has moved by this share of itself (s then moves by about
// kScaleStep / b): finer steps change the result by less than the solver's rounding of the rates.
constexpr double kScaleStep = 0.01;
// Nearer its draw than this share of the limit, the average is taken as settled (no more events).
constexpr double kSettled = 1e-3;
}  // namespace

PowerWindowObserver::PowerWindowObserver(engine::Simulation& sim, engine::ResourceId power, double limit,
                                         double window, double start, double rate_exponent)
    : power_(power),
      limit_(limit),
      window_ps_(window * 1e12),
      rate_exponent_(rate_exponent),
      average_(start),
      integrated_to_(sim.now()) {
  sim.solver().set_capacity(power_, kOpen, sim.now());
}

double PowerWindowObserver::scale_for(double a) const {
  if (a <= limit_) return 1;
  return std::pow(limit_ / a, 1 / rate_exponent_);
}

void PowerWindowObserver::cancel_pending(engine::Simulation& sim) {
  if (pending_at_ >= 0) sim.cancel(pending_);
  pending_at_ = -1;
}

void PowerWindowObserver::update(engine::Simulation& sim) {
  cancel_pending(sim);
  // The next average at which the clock moves: the limit, when the average rises to it from below
  // (the clock leaves full there); else a step of kScaleStep of the average toward D, or half the
  // way when that is nearer (D is approached, never reached). None when nothing in flight draws
  // power (its settle will read what the idle time left; no event keeps an idle run going), when
  // the average has settled at D, or while both stay under the limit.
  const double gap = draw_ - average_;
  double target = average_;
  if (draw_ > 0 && std::abs(gap) > kSettled * limit_) {
    if (average_ < limit_) {
      if (draw_ > limit_) target = limit_;
    } else {
      const double step = std::min(kScaleStep * average_, 0.5 * std::abs(gap));
      target = average_ + (gap > 0 ? step : -step);
    }
  }
  // Until then the clock is set for the average midway there (held at the start's, it would run
  // ahead of the law by half a step); below the limit it is full.
  scale_ = average_ < limit_ ? 1 : scale_for(0.5 * (average_ + target));
  engine::FluidSolver& solver = sim.solver();
  // No draw, nothing to slow: the resource stays open (a capacity of s x 0 would stall new flows).
  const double capacity = scale_ < 1 && draw_ > 0 ? scale_ * draw_ : kOpen;
  if (capacity != solver.capacity(power_)) {
    solver.set_capacity(power_, capacity, sim.now());
    solver.solve(sim.now());
  }
  seen_solves_ = solver.solves();
  if (target == average_) return;
  // A(t) = D + (A0 - D) exp(-t / window) reaches the target at t = window ln((D - A0) / (D - target)).
  const double t = window_ps_ * std::log(gap / (draw_ - target));
  pending_at_ = sim.now() + std::max<TimePs>(1, static_cast<TimePs>(std::ceil(t)));
  pending_ = sim.at(pending_at_, [this, &sim] {
    pending_at_ = -1;
    update(sim);
  });
}

void PowerWindowObserver::settle(engine::Simulation& sim) {
  engine::FluidSolver& solver = sim.solver();
  solver.solve(sim.now());
  if (solver.solves() == seen_solves_) return;  // no flow changed since D was read
  // The work in flight changed: read its full-clock draw with the resource open, then set the clock.
  if (scale_ < 1) {
    solver.set_capacity(power_, kOpen, sim.now());
    solver.solve(sim.now());
  }
  draw_ = solver.load(power_);
  update(sim);
}

void PowerWindowObserver::before_step(engine::Simulation& sim, TimePs next) {
  (void)sim;
  if (next <= integrated_to_) return;
  const double dt = static_cast<double>(next - integrated_to_);
  average_ = draw_ + (average_ - draw_) * std::exp(-dt / window_ps_);
  integrated_to_ = next;
}

}  // namespace c3sim::models
