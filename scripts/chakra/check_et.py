#!/usr/bin/env python3
"""Reads Stagecraft's Chakra execution traces back with Chakra's published schema and prints what
each rank holds: node counts by type, and that every dependency names an earlier node of the rank,
every send has a matching receive (peer, tag, size) on its peer, every compute node that consumes a
received tensor depends on its receive.

Chakra's schema is not on PyPI: compile its schema/protobuf/et_def.proto (github.com/mlcommons/chakra)
with protoc from PyPI's grpcio-tools, in a throw-away venv, never as a build or test dependency:

    python3 -m venv /tmp/ck && /tmp/ck/bin/pip install grpcio-tools
    /tmp/ck/bin/python -m grpc_tools.protoc -I DIR_WITH_ET_DEF --python_out=DIR DIR/et_def.proto
    stagecraft-cli export -s zb-h1 --set parallel.pp=4 --set parallel.microbatches=8 -o zb.et
    PYTHONPATH=DIR /tmp/ck/bin/python scripts/chakra/check_et.py zb 4
"""
import collections
import sys

import et_def_pb2 as et


def varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def read(path):
    data = open(path, "rb").read()
    at, messages = 0, []
    while at < len(data):
        size, at = varint(data, at)
        messages.append(data[at : at + size])
        at += size
    metadata = et.GlobalMetadata()
    metadata.ParseFromString(messages[0])
    nodes = []
    for m in messages[1:]:
        node = et.Node()
        node.ParseFromString(m)
        nodes.append(node)
    return metadata, nodes


def attrs(node):
    out = {}
    for a in node.attr:
        out[a.name] = getattr(a, a.WhichOneof("value"))
    return out


def main():
    prefix, ranks = sys.argv[1], int(sys.argv[2])
    sends, recvs = collections.Counter(), collections.Counter()
    for rank in range(ranks):
        metadata, nodes = read(f"{prefix}.{rank}.et")
        ids = {n.id: n for n in nodes}
        assert len(ids) == len(nodes), "node ids repeat"
        for n in nodes:
            for d in list(n.data_deps) + list(n.ctrl_deps):
                assert d in ids and d < n.id, f"rank {rank}: node {n.id} depends on {d}, not an earlier node"
            a = attrs(n)
            if n.type == et.COMM_SEND_NODE:
                sends[(a["comm_src"], a["comm_dst"], a["comm_tag"], a["comm_size"])] += 1
                assert any(ids[d].type == et.COMP_NODE for d in n.data_deps), "a send without its producer"
            elif n.type == et.COMM_RECV_NODE:
                recvs[(a["comm_src"], a["comm_dst"], a["comm_tag"], a["comm_size"])] += 1
        kinds = collections.Counter(et.NodeType.Name(n.type) for n in nodes)
        waiting = sum(1 for n in nodes if n.type == et.COMP_NODE
                      and any(ids[d].type == et.COMM_RECV_NODE for d in n.data_deps))
        print(f"rank {rank} ({metadata.version}): {dict(sorted(kinds.items()))}; "
              f"{waiting} compute nodes wait for a receive")
    assert sends == recvs, "sends and receives do not pair up"
    print(f"{sum(sends.values())} transfers, each send matched by its receive (peer, tag, bytes)")


if __name__ == "__main__":
    main()
