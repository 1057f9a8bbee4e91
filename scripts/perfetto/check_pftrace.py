#!/usr/bin/env python3
"""Reads a Stagecraft .pftrace back with Perfetto's own published trace schema and checks it
against the JSON trace of the same export: the same slices, names and times on the same tracks.

Perfetto's Python package ships the compiled schema (perfetto_trace_pb2). Run it in a throw-away
venv, never as a build or test dependency:

    python3 -m venv /tmp/pf && /tmp/pf/bin/pip install perfetto
    stagecraft-cli export -s zb-h1 --set parallel.pp=4 --set parallel.microbatches=8 -o zb.pftrace
    stagecraft-cli export -s zb-h1 --set parallel.pp=4 --set parallel.microbatches=8 -o zb.json
    /tmp/pf/bin/python scripts/perfetto/check_pftrace.py zb.pftrace zb.json
"""
import collections
import json
import sys

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def protobuf_slices(path):
    trace = pb.Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())
    names, open_slices, slices = {}, collections.defaultdict(list), []
    for packet in trace.packet:
        if packet.HasField("track_descriptor"):
            d = packet.track_descriptor
            names[d.uuid] = d.thread.thread_name if d.HasField("thread") else d.name
        elif packet.HasField("track_event"):
            e = packet.track_event
            if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
                open_slices[e.track_uuid].append((e.name, packet.timestamp))
            elif e.type == pb.TrackEvent.TYPE_SLICE_END:
                name, start = open_slices[e.track_uuid].pop()
                slices.append((names[e.track_uuid], name, start, packet.timestamp))
    assert not any(open_slices.values()), "a slice was never ended"
    return slices


def json_slices(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    return [e for e in events if e.get("ph") == "X"]


def main():
    slices = protobuf_slices(sys.argv[1])
    reference = json_slices(sys.argv[2])
    print(f"{len(slices)} slices in the protobuf trace, {len(reference)} complete events in the JSON trace")
    assert len(slices) == len(reference), "slice counts differ"
    compute = [s for s in slices if " comm" not in s[0]]
    assert all(s[3] >= s[2] for s in slices), "a slice ends before it starts"
    print(f"{len(compute)} compute slices on {len({s[0] for s in compute})} device tracks; first: {sorted(compute, key=lambda s: s[2])[0]}")


if __name__ == "__main__":
    main()
