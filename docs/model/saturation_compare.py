#!/usr/bin/env python3
"""Predicts bench_server_saturation's curves (sat.json) with psbench model mva and sim from each curve's own
Z (think_us) and D (service_us, service_cv); prints measured / mva / sim per client count and the MAPE.
Run in a folder holding sat.json, with PSBENCH pointing at the binary and CALIB_TEMPLATE at a calib.json."""
import json, os, subprocess

P = os.environ.get('PSBENCH', 'build/default/src/cli/psbench')
base = json.load(open(os.environ.get('CALIB_TEMPLATE', 'tests/cli/model/calib.json')))
d = json.load(open('sat.json'))
for i, r in enumerate(d['runs'][:4]):
    c = json.loads(json.dumps(base))
    bytes_ = 4 * r['parameters']
    z, dsrv = r['think_us'] * 1e-6, r['service_us'] * 1e-6
    c['compute'] = [{'model': 'mlp:512,256', 'step_s_vs_batch': {'intercept': z, 'slope': 0.0, 'source': 'sat.json think_us', 'residual': 0.0, 'points': 1}}]
    c['update_s_vs_bytes'] = {'intercept': 0.0, 'slope': dsrv / (bytes_ / r['servers']), 'source': 'sat.json service_us', 'residual': 0.0, 'points': 1}
    c['exchange_messages_s_vs_bytes'] = {'intercept': 0.0, 'slope': 0.0, 'source': 'none', 'residual': 0.0, 'points': 1}
    c['exchange_shared_window_s_vs_bytes'] = {'intercept': 0.0, 'slope': 0.0, 'source': 'none', 'residual': 0.0, 'points': 0}
    c['service_cv'] = {'value': r['service_cv'], 'source': 'sat.json', 'residual': 0.0, 'points': 1}
    json.dump(c, open('calib-sat%d.json' % i, 'w'))
    meas = {p['clients']: p['updates_per_s'] for p in r['points']}
    out = {}
    for kind in ('mva', 'sim'):
        # sleeping clients use no core: one rank per node on a fast rack, so no core is shared and links cost nothing
        txt = subprocess.run([P, 'model', 'predict', '--calib', 'calib-sat%d.json' % i, '--workers', '1-16', '--servers',
                              str(r['servers']), '--kind', kind, '--platform', 'rack:18:100000:0.001', '--ranks-per-node', '1',
                              '--samples', str(64 * 16 * 200), '--format', 'json'], capture_output=True, text=True).stdout
        out[kind] = {p['workers']: p['updates_per_s'] for p in json.loads(txt)['predictions']}
    print('run %d: S=%d P=%d Z=%.0fus D=%.0fus cv=%.2f knee measured %d, (Z+D)/D %.1f' % (
        i, r['servers'], r['parameters'], r['think_us'], r['service_us'], r['service_cv'], r['knee_clients'], r['knee_model']))
    errs = {'mva': [], 'sim': []}
    for k in range(1, 17):
        for kind in errs: errs[kind].append(abs(out[kind][k] - meas[k]) / meas[k] * 100)
        print('  k=%2d measured %7.1f  mva %7.1f  sim %7.1f' % (k, meas[k], out['mva'][k], out['sim'][k]))
    print('  MAPE mva %.1f%%  sim %.1f%%' % (sum(errs['mva']) / 16, sum(errs['sim']) / 16))
