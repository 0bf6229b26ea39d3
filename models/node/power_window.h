#pragma once
// The board power limit as a controller acts on it (model.power.window > 0): the limit binds on
// the power averaged over the controller's window, not on the power drawn at each instant.
//
// A GPU's power manager lowers the clock when its averaged draw reaches the limit: from rest, a
// long GEMM runs unthrottled for tens of milliseconds before the clock falls, and an idle gap of
// a similar length restores it (hardware/measurements/clocks/). The average here is an
// exponential one with time constant `window`: dA/dt = (P - A) / window, with P the dynamic draw
// (above `static`) of the flows in flight. While A is below the limit the power resource is open
// (no flow is slowed by it); once A reaches the limit, the resource's capacity becomes the limit
// itself (the instantaneous law, which holds A there); when the work in flight draws less than
// the limit, the resource opens again and A decays.
//
// Work per step: one read of the power resource's load (O(flows using it)), an exponential, and at
// most one scheduled event for the instant A reaches the limit.
#include "sim/engine/simulation.h"

namespace c3sim::models {

class PowerWindowObserver final : public engine::StepObserver {
public:
  // `limit`: the dynamic power the window may average (W: limit - static); `window`: the averaging
  // time constant (s); `start`: the average at the run's start (W above static; 0 = rested).
  PowerWindowObserver(engine::Simulation& sim, engine::ResourceId power, double limit, double window,
                      double start);
  void settle(engine::Simulation& sim) override;
  void before_step(engine::Simulation& sim, TimePs next) override;

  // The average at the current engine time (after the last step integrated it).
  [[nodiscard]] double average() const { return average_; }
  [[nodiscard]] bool capped() const { return capped_; }

private:
  void cap(engine::Simulation& sim);
  // Drops the scheduled capping event, if any.
  void cancel_pending(engine::Simulation& sim);

  engine::ResourceId power_;
  double limit_;
  double window_ps_;
  double average_;
  double load_ = 0;  // draw of the flows in flight after the last settle (W)
  TimePs integrated_to_ = 0;
  bool capped_ = false;
  engine::EventId pending_ = -1;  // the event that caps at the predicted instant
  TimePs pending_at_ = -1;
};

}  // namespace c3sim::models
