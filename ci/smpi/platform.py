#!/usr/bin/env python3
"""Write a SimGrid platform file with at least NODES hosts of KIND.

usage: platform.py KIND NODES OUT.xml [CORES [TOPOLOGY]]  ->  prints the host names, one per line

CORES: cores per host (default 1), one per rank placed there: a host's cores
compute in parallel (fastred's charged reductions, src/simulated.rs), a
single core would serialise the reductions of all its ranks.

TOPOLOGY: also write the network as a fastred topology file (FASTRED_TOPOLOGY,
src/topology.rs) for the tree-shaped kinds: flat (one switch) and the fat trees
(a switch per leaf, each cabled to one core switch standing for the spines);
the torus and the dragonfly are not trees (nothing is written, a note on stderr).

Kinds (links full duplex, SPLITDUPLEX; ranks on one host talk through its
loopback, 50 GB/s and 0.1 us, like shared memory):
  flat        every host on a private 100 Gbit/s (12.5 GB/s), 1 us link, no core limit
  flat10g     the same at 10 Gbit/s (1.25 GB/s), 2 us
  flat1g      1 Gbit/s Ethernet with TCP: 125 MB/s, 15 us per link (30 us
              host to host; smpirun.sh adds 2 us of software overhead per
              message at each end for this kind): n½ about 4 KB
  fattree     2-level fat tree, 16 hosts per leaf switch, full bisection, 100 Gbit/s, 1 us
  fattree2to1 / fattree4to1   the same with 8 / 4 uplinks per leaf (2:1 / 4:1 oversubscribed)
  torus       3D torus of hosts (dimensions near a cube), 100 Gbit/s, 1 us per link
  dragonfly   groups of 4 chassis x R routers x 4 hosts, one link between routers,
              chassis and groups, 100 Gbit/s, 1 us; R = 4 up to 256 hosts, beyond
              the smallest R with no more groups than R (SimGrid's minimal route
              reaches group g through the router numbered g in a chassis, so
              more groups than routers per chassis crash it: 1000 hosts of
              4 x 4 x 4 groups did)
"""
import math
import sys

LINK = {"bw": "12.5GBps", "lat": "1us"}


def torus_dims(n):
    """Three dimensions, powers of two or near-cubic, whose product is >= n.

    At most one dimension is 1: SimGrid (3.32) declares a link from a node to
    itself in every dimension of size 1 and aborts on the second ("Link
    'torus_link_from_0_to_0_UP' declared several times"), so a prime number of
    hosts gets a few spare nodes (13 -> 7 x 2 x 1) rather than a ring."""
    best = None
    side = max(1, round(n ** (1 / 3)))
    for a in range(1, 2 * side + 2):
        for b in range(max(a, 2), 2 * side + 2):
            c = max(b, math.ceil(n / (a * b)))
            key = (a * b * c, c - a)
            if best is None or key < best[0]:
                best = (key, (c, b, a))
    return best[1]


def cluster(kind, nodes):
    """(attributes of the <cluster> tag, number of hosts)."""
    bw, lat = LINK["bw"], LINK["lat"]
    if kind == "flat10g":
        bw, lat = "1.25GBps", "2us"
    if kind == "flat1g":
        bw, lat = "125MBps", "15us"
    attrs = {"bw": bw, "lat": lat}
    if kind in ("flat", "flat10g", "flat1g"):
        return attrs, nodes
    if kind.startswith("fattree"):
        leaf = 16
        leaves = max(1, math.ceil(nodes / leaf))
        up = {"fattree": 16, "fattree2to1": 8, "fattree4to1": 4}[kind]
        if leaves == 1:  # one switch: nothing to oversubscribe
            attrs.update(topology="FAT_TREE", topo_parameters=f"1;{leaf};1;1")
            return attrs, leaf
        attrs.update(topology="FAT_TREE", topo_parameters=f"2;{leaf},{leaves};1,{up};1,1")
        return attrs, leaf * leaves
    if kind == "torus":
        dims = torus_dims(nodes)
        attrs.update(topology="TORUS", topo_parameters=",".join(map(str, dims)))
        return attrs, dims[0] * dims[1] * dims[2]
    if kind == "dragonfly":
        routers = 4
        while math.ceil(nodes / (4 * routers * 4)) > routers:
            routers += 1
        per_group = 4 * routers * 4
        groups = max(1, math.ceil(nodes / per_group))
        attrs.update(topology="DRAGONFLY", topo_parameters=f"{groups},1;4,1;{routers},1;4")
        return attrs, groups * per_group
    raise SystemExit(f"platform.py: unknown kind {kind!r} (see the usage)")


def topology(kind, hosts):
    """The fastred topology file's text for a tree-shaped kind, else None."""
    names = [f"node-{h}" for h in range(hosts)]
    if kind in ("flat", "flat10g", "flat1g"):
        return "# ci/smpi/platform.py: one switch\nswitch net " + " ".join(names) + "\n"
    if kind.startswith("fattree"):
        leaf = 16
        lines = [f"# ci/smpi/platform.py {kind}: {hosts} hosts, {leaf} per leaf switch, the spines as one core switch"]
        for i in range(0, hosts, leaf):
            lines.append(f"switch leaf{i // leaf} " + " ".join(names[i:i + leaf]))
        if hosts > leaf:
            lines += ["switch core"] + [f"link leaf{i // leaf} core" for i in range(0, hosts, leaf)]
        return "\n".join(lines) + "\n"
    return None


def main():
    if len(sys.argv) not in (4, 5, 6):
        raise SystemExit(__doc__)
    kind, nodes, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    cores = int(sys.argv[4]) if len(sys.argv) >= 5 else 1
    attrs, hosts = cluster(kind, nodes)
    extra = " ".join(f'{k}="{v}"' for k, v in attrs.items())
    with open(out, "w") as f:
        f.write(f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <!-- ci/smpi/platform.py {kind} {nodes}: {hosts} hosts -->
  <cluster id="{kind}" prefix="node-" suffix="" radical="0-{hosts - 1}" speed="1Gf" core="{cores}"
           sharing_policy="SPLITDUPLEX" loopback_bw="50GBps" loopback_lat="0.1us"
           {extra}/>
</platform>
""")
    if len(sys.argv) == 6:
        text = topology(kind, hosts)
        if text is None:
            print(f"platform.py: {kind} is not a tree: no topology file", file=sys.stderr)
        else:
            with open(sys.argv[5], "w") as f:
                f.write(text)
    # Hosts in an order that fills leaf switches / routers first (the cluster's numbering).
    for h in range(hosts):
        print(f"node-{h}")


if __name__ == "__main__":
    main()
