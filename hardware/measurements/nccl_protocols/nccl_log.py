"""Read NCCL's debug log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING, NCCL_DEBUG_FILE=...).

Three kinds of line matter (NCCL 2.28.9, src/enqueue.cc and src/graph/tuning.cc), each after the
prefix `host:pid:tid [cudaDev] NCCL INFO `:

- one per collective, printed by the communicator's rank 0 as the collective is enqueued:
      AllReduce: 8192 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}
  Bytes = count x element size: the whole buffer for AllReduce, one rank's input for AllGather,
  one rank's output for ReduceScatter. Point-to-point operations (send/recv, so all-to-all) print
  no such line.
- the tuning tables each communicator's rank 0 prints at init: per function, per algorithm and
  protocol, NCCL's model latency (us) and bus bandwidth (GB/s) (`latency/bandwidth`);
- `N coll channels, N collnet channels, N nvls channels, N p2p channels, N p2p channels per peer`.

Used by capture_steps.py and sweep_protocols.py on the device and by hand here:

    python3 nccl_log.py LOG [START_BYTE END_BYTE]   # the choices in a byte range, as JSON lines
    python3 nccl_log.py --self-test
"""
import collections
import json
import re
import sys

# The TUNING line's function name for each c3sim collective op (all-to-all is send/recv: no line).
NCCL_FUNC = {"all_reduce": "AllReduce", "all_gather": "AllGather", "reduce_scatter": "ReduceScatter",
             "all_to_all": "SendRecv"}
TUNING_RE = re.compile(r"NCCL INFO (\w+): (\d+) Bytes -> Algo (\S+) proto (\S+) channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\}")
CHANNELS_RE = re.compile(r"NCCL INFO (\d+) coll channels, (\d+) collnet channels, (\d+) nvls channels, "
                         r"(\d+) p2p channels, (\d+) p2p channels per peer")
ALGO_HEADER_RE = re.compile(r"NCCL INFO\s+Algorithm\s+\|(.*)$")
PROTO_HEADER_RE = re.compile(r"NCCL INFO\s+Protocol\s+\|(.*)$")
ROW_RE = re.compile(r"NCCL INFO\s*(\w+) \|((?:\s*[\d.]+/\s*[\d.]+ \|)+)\s*$")


def read_range(path, start=0, end=None):
    """The log's text from byte `start` to byte `end` (whole lines only)."""
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read() if end is None else f.read(max(0, end - start))
    text = data.decode("utf-8", "replace")
    cut = text.rfind("\n")
    return text[: cut + 1] if cut >= 0 else ""


def tuning_choices(text):
    """Every per-collective choice line, in order."""
    out = []
    for m in TUNING_RE.finditer(text):
        lo, hi = int(m.group(5)), int(m.group(6))
        out.append({"func": m.group(1), "bytes": int(m.group(2)), "algorithm": m.group(3),
                    "protocol": m.group(4), "channel_lo": lo, "channel_hi": hi, "channels": hi - lo + 1})
    return out


def dominant_choice(text, func=None):
    """The most frequent (func, bytes, algorithm, protocol, channels) of a range (the repetitions of
    one timed collective), with how many lines agreed and how many there were; only lines of NCCL
    function `func` (AllReduce, AllGather, ...) when given, so that barriers in the range (1-element
    all-reduces) never stand for a collective that prints no line (send/recv)."""
    choices = [c for c in tuning_choices(text) if func is None or c["func"] == func]
    if not choices:
        return None
    keyed = collections.Counter((c["func"], c["bytes"], c["algorithm"], c["protocol"], c["channels"])
                                for c in choices)
    (func, nbytes, algo, proto, ch), n = keyed.most_common(1)[0]
    return {"func": func, "bytes": nbytes, "algorithm": algo, "protocol": proto, "channels": ch,
            "lines": len(choices), "agreeing": n}


def channel_counts(text):
    """Each communicator's channel counts from its init line, in order."""
    return [{"coll": int(m.group(1)), "collnet": int(m.group(2)), "nvls": int(m.group(3)),
             "p2p": int(m.group(4)), "p2p_per_peer": int(m.group(5))} for m in CHANNELS_RE.finditer(text)]


def tuning_tables(text):
    """Each tuning table printed at init: {function: {algorithm: {protocol: {latency_us, busbw_GBps}}}}.
    NCCL prints the algorithms in blocks of three; one table is every block of one init."""
    tables, current, algos, protos = [], None, [], []
    for line in text.splitlines():
        m = ALGO_HEADER_RE.search(line)
        if m:
            names = [s.strip() for s in m.group(1).split("|") if s.strip()]
            if current is None or (names and names[0] in current.get("_algos_seen", [])):
                current = {"_algos_seen": []}
                tables.append(current)
            algos = names
            current["_algos_seen"] += names
            continue
        m = PROTO_HEADER_RE.search(line)
        if m:
            protos = [s.strip() for s in m.group(1).split("|") if s.strip()]
            continue
        m = ROW_RE.search(line)
        if m and current is not None and algos and protos:
            cells = [c.strip() for c in m.group(2).split("|") if c.strip()]
            per_algo = len(protos) // 3 if len(protos) % 3 == 0 and len(protos) >= 3 else len(protos)
            proto_names = protos[:per_algo]
            for i, cell in enumerate(cells):
                a, p = divmod(i, len(proto_names))
                if a >= len(algos):
                    break
                lat, bw = (float(x) for x in cell.split("/"))
                current.setdefault(m.group(1), {}).setdefault(algos[a], {})[proto_names[p]] = {
                    "latency_us": lat, "busbw_GBps": bw}
    for t in tables:
        t.pop("_algos_seen", None)
    return tables


SAMPLE = """\
h:1:1 [0] NCCL INFO comm 0x5 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0
h:1:1 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer
h:1:1 [0] NCCL INFO   Algorithm   |                     Tree                |                     Ring                |            CollNetDirect                |
h:1:1 [0] NCCL INFO   Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |
h:1:1 [0] NCCL INFO  Max NThreads |            512 |            640 |            512 |            512 |            640 |            512 |              0 |              0 |            512 |
h:1:1 [0] NCCL INFO     Broadcast |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     4.6/ 72.0 |    10.6/352.9 |    24.0/362.7 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |
h:1:1 [0] NCCL INFO     AllReduce |     6.6/ 72.0 |    14.9/352.9 |    32.6/362.7 |     5.6/ 72.0 |    11.6/352.9 |    28.0/362.7 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |
h:1:1 [0] NCCL INFO   Algorithm   |             CollNetChain                |                     NVLS                |                 NVLSTree                |
h:1:1 [0] NCCL INFO   Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |
h:1:1 [0] NCCL INFO     AllReduce |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |
h:1:1 [0] NCCL INFO AllReduce: 8192 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}
h:1:1 [0] NCCL INFO AllReduce: 8192 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}
h:1:1 [0] NCCL INFO AllGather: 67108864 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}
"""


def self_test():
    choices = tuning_choices(SAMPLE)
    assert [c["channels"] for c in choices] == [2, 2, 24], choices
    assert choices[2] == {"func": "AllGather", "bytes": 67108864, "algorithm": "RING", "protocol": "SIMPLE",
                          "channel_lo": 0, "channel_hi": 23, "channels": 24}, choices[2]
    d = dominant_choice(SAMPLE)
    assert d["func"] == "AllReduce" and d["agreeing"] == 2 and d["lines"] == 3, d
    assert dominant_choice(SAMPLE, "AllGather")["bytes"] == 67108864
    assert dominant_choice(SAMPLE, "ReduceScatter") is None
    assert channel_counts(SAMPLE)[0]["coll"] == 24
    t = tuning_tables(SAMPLE)
    assert len(t) == 1, t
    assert t[0]["AllReduce"]["Ring"]["LL128"] == {"latency_us": 11.6, "busbw_GBps": 352.9}, t[0]["AllReduce"]
    assert t[0]["AllReduce"]["Tree"]["Simple"]["latency_us"] == 32.6
    assert t[0]["Broadcast"]["Ring"]["LL"]["busbw_GBps"] == 72.0
    assert t[0]["AllReduce"]["NVLS"]["LL"]["busbw_GBps"] == 0.0
    # A second init's table starts a second table.
    assert len(tuning_tables(SAMPLE + SAMPLE)) == 2
    print("nccl_log self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    path = sys.argv[1]
    start = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    end = int(sys.argv[3]) if len(sys.argv) > 3 else None
    for c in tuning_choices(read_range(path, start, end)):
        print(json.dumps(c))


if __name__ == "__main__":
    main()
