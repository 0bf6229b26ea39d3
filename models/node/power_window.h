#pragma once
// The board power limit as the power manager applies it (model.power.window > 0): it sets the clock
// from the power averaged over its window, not from the draw at each instant.
//
// D is what the work in flight would draw at the full clock (its flows' J per unit at their
// unthrottled rates, the power resource open). The manager averages it with time constant
// `window`: dA/dt = (D - A) / window. While A is at or under the limit L the clock is full; above
// it the clock falls to the scale s at which the averaged draw is the limit. A lower clock runs at
// a lower voltage, so work slowed to s of its rate draws s^b of its full-clock draw (`rate_exponent`
// b; measured on an H200, b ~ 2.3: hardware/measurements/torch_steps/gemm_power/), and
//   s = (L / A)^(1/b)   when A > L, else 1.
// The power resource's capacity is then s D (open at s = 1): the flows that draw power run at s of
// their rate. So a burst shorter than the window runs unthrottled, a sustained load settles where
// its draw is the limit (s^b D = L), and a load that runs part of the time (a GEMM between lighter
// kernels) settles where its averaged draw is (the duty experiments of gemm_power/).
//
// Work per step: nothing unless the solver re-solved since the last step (then, when throttled, one
// more solve with the resource open for D and one with the new capacity); the clock is re-set at
// scheduled instants while A moves, each when s has moved by about kScaleStep / b.
#include <cstdint>
#include <limits>

#include "sim/engine/simulation.h"

namespace c3sim::models {

class PowerWindowObserver final : public engine::StepObserver {
public:
  // `limit`: the dynamic power the window may average (W: limit - static); `window`: the averaging
  // time constant (s); `start`: A at the run's start (W above static; 0 = rested); `rate_exponent`:
  // b above (>= 1).
  PowerWindowObserver(engine::Simulation& sim, engine::ResourceId power, double limit, double window,
                      double start, double rate_exponent = 1);
  void settle(engine::Simulation& sim) override;
  void before_step(engine::Simulation& sim, TimePs next) override;

  // A at the current engine time (after the last step integrated it).
  [[nodiscard]] double average() const { return average_; }

private:
  // s for an average of `a`.
  [[nodiscard]] double scale_for(double a) const;
  // Sets the clock for the current average and draw (the resource's capacity, then a solve) and
  // schedules the next instant it must move (A reaching the limit, or moving by a step).
  void update(engine::Simulation& sim);
  void cancel_pending(engine::Simulation& sim);

  engine::ResourceId power_;
  double limit_;
  double window_ps_;
  double rate_exponent_;
  double average_;
  double draw_ = 0;   // D: the work in flight's draw at the full clock (W)
  double scale_ = 1;  // s
  TimePs integrated_to_ = 0;
  // The solver's solve count when D was last read (none yet: no count equals it).
  std::uint64_t seen_solves_ = std::numeric_limits<std::uint64_t>::max();
  engine::EventId pending_ = -1;
  TimePs pending_at_ = -1;
};

}  // namespace c3sim::models
