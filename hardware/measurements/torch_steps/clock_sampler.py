"""Sample one GPU's SM clock and board power through NVML (nvidia-ml-py) in a background thread,
as fast as the calls return, stamped with the host's time.time_ns(), the clock capture_steps.py
stamps each step with; so a sample falls inside a step when its stamp lies between the step's
host stamps.

NVML refreshes what it reports on its own period (the samples repeat a value until it changes),
so `changes` (the samples whose value differs from the one before) bounds the time resolution.
"""
import threading
import time


class ClockSampler:
    def __init__(self, device_uuid, fallback_index, period_s=0.0005):
        import pynvml  # nvidia-ml-py; ImportError tells the caller there is no NVML to read

        self.nvml = pynvml
        pynvml.nvmlInit()
        try:
            self.handle = pynvml.nvmlDeviceGetHandleByUUID(device_uuid)
            self.matched_by = "uuid"
        except pynvml.NVMLError:
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(fallback_index)
            self.matched_by = "index"
        self.index = pynvml.nvmlDeviceGetIndex(self.handle)
        self.period_s = period_s
        self.samples = []  # [host ns, SM MHz, power mW (average), power mW (instant) or None, event reasons]
        self.stop_flag = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def read_instant_mw(self):
        try:
            fv = self.nvml.nvmlDeviceGetFieldValues(self.handle, [self.nvml.NVML_FI_DEV_POWER_INSTANT])[0]
            return fv.value.uiVal if fv.nvmlReturn == 0 else None
        except (self.nvml.NVMLError, AttributeError):
            return None

    def read_reasons(self):
        try:
            return self.nvml.nvmlDeviceGetCurrentClocksEventReasons(self.handle)
        except (self.nvml.NVMLError, AttributeError):
            return None

    def run(self):
        n = self.nvml
        while not self.stop_flag.is_set():
            t = time.time_ns()
            sm = n.nvmlDeviceGetClockInfo(self.handle, n.NVML_CLOCK_SM)
            power = n.nvmlDeviceGetPowerUsage(self.handle)
            self.samples.append([t, sm, power, self.read_instant_mw(), self.read_reasons()])
            time.sleep(self.period_s)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.stop_flag.set()
        self.thread.join()
        return self

    def result(self):
        changes = [s[0] for i, s in enumerate(self.samples[1:], 1) if s[1:4] != self.samples[i - 1][1:4]]
        gaps = [b - a for a, b in zip(changes, changes[1:])]
        return {"nvml_index": self.index, "matched_by": self.matched_by,
                "fields": ["host_time_ns", "sm_mhz", "power_mw", "power_instant_mw", "clocks_event_reasons"],
                "samples": self.samples, "value_changes": len(changes),
                "median_ns_between_changes": sorted(gaps)[len(gaps) // 2] if gaps else None}
