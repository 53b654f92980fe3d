#!/usr/bin/env python3
"""Writes grafana-pttd.json, the Grafana dashboard for pttd (import it in Grafana: Dashboards, New, Import)."""
import json
J = '{job="$job", instance=~"$instance"}'
WAKE = '{job="$job", instance=~"$instance", kind="wake"}'
def ts(title, exprs, unit="short", x=0, y=0, w=12, h=8):
    return {"type": "timeseries", "title": title, "datasource": {"type": "prometheus", "uid": "${datasource}"},
            "gridPos": {"x": x, "y": y, "w": w, "h": h},
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "targets": [{"refId": chr(65 + i), "expr": e, "legendFormat": l} for i, (e, l) in enumerate(exprs)]}
def stat(title, expr, unit="short", x=0, y=0, w=4, h=4):
    return {"type": "stat", "title": title, "datasource": {"type": "prometheus", "uid": "${datasource}"},
            "gridPos": {"x": x, "y": y, "w": w, "h": h}, "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "targets": [{"refId": "A", "expr": expr}]}
def r(metric, window="1m", by=None, scale=""):
    inner = "rate(%s%s[%s])" % (metric, J, window)
    return ("sum by (%s) (%s)" % (by, inner) if by else "sum(%s)" % inner) + scale
panels = [
    stat("Up", "up" + J, x=0, y=0),
    stat("Members", "ptt_members" + J, x=4, y=0),
    stat("Control connections", "ptt_control_connections" + J, x=8, y=0),
    stat("Browser members", "ptt_web_sessions" + J, x=12, y=0),
    stat("Channels", "ptt_channels" + J, x=16, y=0),
    stat("Data disk free", "ptt_data_filesystem_free_bytes%s / ptt_data_filesystem_size_bytes%s" % (J, J), unit="percentunit", x=20, y=0),
    ts("Audio relayed and dropped (packets/s)", [
        (r("ptt_media_packets_forwarded_total"), "forwarded"),
        (r("ptt_media_packets_dropped_total", by="reason"), "dropped {{reason}}")], unit="pps", x=0, y=4),
    ts("Floor (per minute)", [
        (r("ptt_floor_grants_total", "5m", scale=" * 60"), "grants"),
        (r("ptt_floor_denies_total", "5m", scale=" * 60"), "denies"),
        (r("ptt_floor_queued_total", "5m", scale=" * 60"), "queued"),
        (r("ptt_floor_revokes_total", "5m", by="cause", scale=" * 60"), "revoked {{cause}}")], x=12, y=4),
    ts("Wakes by outcome (per minute)", [
        ("sum by (transport, outcome, reason) (rate(ptt_pushes_total%s[5m])) * 60" % WAKE, "{{transport}} {{outcome}} {{reason}}")], x=0, y=12),
    ts("Connections", [
        ("ptt_control_connections" + J, "control (browsers included)"),
        ("ptt_web_sessions" + J, "browsers"),
        (r("ptt_control_connections_refused_total", "5m", by="reason", scale=" * 60"), "refused/min {{reason}}"),
        (r("ptt_control_connections_closed_total", "5m", by="reason", scale=" * 60"), "closed/min {{reason}}")], x=12, y=12),
    ts("Catch-up and replays (per minute)", [
        (r("ptt_catchup_started_total", "5m", scale=" * 60"), "catch-ups started"),
        (r("ptt_catchup_finished_total", "5m", by="outcome", scale=" * 60"), "catch-ups {{outcome}}"),
        (r("ptt_replay_started_total", "5m", scale=" * 60"), "replays")], x=0, y=20),
    ts("Browser bridge (packets/s)", [
        (r("ptt_web_media_packets_total", by="direction"), "{{direction}}"),
        (r("ptt_web_media_dropped_total", by="reason"), "dropped {{reason}}")], unit="pps", x=12, y=20),
    ts("Recordings and disk", [
        (r("ptt_recordings_bytes_total", "5m"), "bytes/s recorded"),
        ("ptt_data_filesystem_free_bytes" + J, "disk free")], unit="bytes", x=0, y=28),
    ts("Floor grant, the server's share (read to write)", [
        ("histogram_quantile(0.99, sum by (le, request) (rate(ptt_floor_grant_seconds_bucket%s[5m])))" % J,
         "p99 {{request}}"),
        ("histogram_quantile(0.5, sum by (le, request) (rate(ptt_floor_grant_seconds_bucket%s[5m])))" % J,
         "p50 {{request}}")], unit="s", x=0, y=36),
    ts("Admin API (per minute)", [
        (r("ptt_admin_requests_total", "5m", scale=" * 60"), "requests"),
        (r("ptt_admin_unauthorized_total", "5m", scale=" * 60"), "unauthorized")], x=12, y=28),
]
for i, p in enumerate(panels): p["id"] = i + 1
dashboard = {
    "title": "pttd", "uid": "pttd-overview", "schemaVersion": 39, "version": 1, "editable": True,
    "tags": ["pttrelay"], "time": {"from": "now-6h", "to": "now"}, "refresh": "30s",
    "description": "pttd (pttrelay): members, connections, audio relayed and dropped, floor, wakes, catch-up, browsers, recordings, disk. Series from pttd's /metrics (Docs/PROTOCOL.md 9.5). Remade by Docs/monitoring/make-dashboard.py.",
    "templating": {"list": [
        {"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus"},
        {"name": "job", "type": "constant", "query": "pttd", "hide": 2},
        {"name": "instance", "type": "query", "datasource": {"type": "prometheus", "uid": "${datasource}"},
         "query": "label_values(up{job=\"pttd\"}, instance)", "includeAll": True, "multi": True, "refresh": 2}]},
    "panels": panels,
}
import os
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "grafana-pttd.json")
json.dump(dashboard, open(out, "w"), indent=2)
print(len(panels), "panels in", out)
