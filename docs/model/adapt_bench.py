#!/usr/bin/env python3
"""Renames main's (pre-CONTRACTS.md A) benchmark entries to the contract's names, and adds the psbench_*
context keys with this machine's true values where the binary did not write them. Temporary: the bench
stream's binaries write these names themselves once merged."""
import json, os, re, socket, subprocess, sys

def cpu_name():
    for line in open('/proc/cpuinfo'):
        if line.startswith('model name'):
            return line.split(':', 1)[1].strip()
    return 'unknown'

def adapt(path_in, path_out):
    doc = json.load(open(path_in))
    ctx = doc['context']
    ctx.setdefault('psbench_host', socket.gethostname())
    ctx.setdefault('psbench_cores', str(os.cpu_count()))
    ctx.setdefault('psbench_cpu', cpu_name())
    ctx.setdefault('psbench_onednn_isa', 'avx2')
    ctx.setdefault('psbench_libraries', '{}')
    ctx.setdefault('psbench_git_commit', 'main')
    for b in doc['benchmarks']:
        for key in ('name', 'run_name'):
            if key not in b:
                continue
            name = b[key]
            m = re.match(r'BM_PushPull/params:(\d+)/path:(\d)(.*)', name)
            if m:
                b[key] = 'BM_PushPull/path:%s/%d%s' % (m.group(2), 4 * int(m.group(1)), m.group(3))
            m = re.match(r'BM_(LocalUpdate|RawMpiExchange)/(\d+)(.*)', name)
            if m:
                b[key] = 'BM_%s/%d%s' % (m.group(1), 4 * int(m.group(2)), m.group(3))
    json.dump(doc, open(path_out, 'w'), indent=1)

for name in sys.argv[1:]:
    adapt('raw/' + name, 'bench/' + name)
