"""``git gasp record`` and the typed helpers of the Python API (REFERENCE §4).

(a) Golden: the helpers, driven in the order of REFERENCE §4.5, write exactly
    its payloads and ops; the envelopes match in kind, actor and the
    causation/correlation *structure* (ids and timestamps differ by nature).
(b) A repository written through every helper passes all seven checks.
(c) Refusals happen before anything is appended (the log bytes are unchanged).
(d) The ``record`` command line, end to end through ``git_gasp.cli.root.main``.
"""

from __future__ import annotations

import enum
import json
import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from git_gasp.agent.api import Agent
from git_gasp.agent.init import init_repo
from git_gasp.agent.runs import close_run
from git_gasp.cli.record import record as record_group
from git_gasp.cli.root import main
from git_gasp.core import payloads as P
from git_gasp.core import runpayloads
from git_gasp.core.event import Actor
from git_gasp.errors import FINDINGS, USAGE, GaspError

from .conftest import log_path

# REFERENCE §4.5 verbatim: the 40 lines yoagent-state 0.4.2 writes for this story.
REFERENCE = """\
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0001","schema_version":1,"ts_ms":1739000000007,"actor":{"kind":"agent","id":"evolve"},"kind":"goal.created","payload":{"id":"goal_retry","metadata":{},"owner":{"id":"evolve","kind":"agent"},"status":"Open","summary":"retries drop state after timeout","title":"Make retry reliable"},"causation_id":null,"correlation_id":null}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0002","schema_version":1,"ts_ms":1739000000014,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"goal_retry","kind":"goal","props":{"metadata":{},"owner":{"id":"evolve","kind":"agent"},"status":"Open","summary":"retries drop state after timeout","title":"Make retry reliable"}}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0001","correlation_id":null}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","schema_version":1,"ts_ms":1739000000021,"actor":{"kind":"agent","id":"evolve"},"kind":"run.started","payload":{"run_id":"run_42","task":"fix retry skill"},"causation_id":null,"correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0004","schema_version":1,"ts_ms":1739000000028,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"run_42","kind":"run","props":{"status":"started","task":"fix retry skill"}}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0005","schema_version":1,"ts_ms":1739000000035,"actor":{"kind":"agent","id":"evolve"},"kind":"task.created","payload":{"created_by":{"id":"evolve","kind":"agent"},"goal":"goal_retry","id":"task_7","metadata":{},"status":"InProgress","summary":"find why retry state resets","title":"Investigate retry timeout"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0006","schema_version":1,"ts_ms":1739000000042,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"task_7","kind":"task","props":{"metadata":{},"status":"InProgress","summary":"find why retry state resets","title":"Investigate retry timeout"}}},{"CreateRelation":{"from":"task_7","props":{},"rel":"serves","to":"goal_retry"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0005","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0007","schema_version":1,"ts_ms":1739000000049,"actor":{"kind":"agent","id":"evolve"},"kind":"observation.created","payload":{"id":"observation_3","metadata":{},"observed_in":"run_42","summary":"attempt count is 0 after timeout","title":"retry counter resets"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0008","schema_version":1,"ts_ms":1739000000056,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"observation_3","kind":"observation","props":{"metadata":{},"summary":"attempt count is 0 after timeout","title":"retry counter resets"}}},{"CreateRelation":{"from":"observation_3","props":{},"rel":"observes","to":"run_42"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0007","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0009","schema_version":1,"ts_ms":1739000000063,"actor":{"kind":"agent","id":"evolve"},"kind":"failure.observed","payload":{"failure_id":"failure_1","id":"failure_1","summary":"attempt count resets","title":"retry timeout loses state"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000a","schema_version":1,"ts_ms":1739000000070,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"failure_1","kind":"failure","props":{"summary":"attempt count resets","title":"retry timeout loses state"}}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0009","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000b","schema_version":1,"ts_ms":1739000000077,"actor":{"kind":"agent","id":"evolve"},"kind":"hypothesis.created","payload":{"confidence":0.7,"id":"hypothesis_2","metadata":{},"summary":"state is not persisted across timeouts","title":"counter kept in memory only"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000c","schema_version":1,"ts_ms":1739000000084,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"hypothesis_2","kind":"hypothesis","props":{"confidence":0.7,"metadata":{},"summary":"state is not persisted across timeouts","title":"counter kept in memory only"}}},{"CreateRelation":{"from":"hypothesis_2","props":{},"rel":"explains","to":"failure_1"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000b","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000d","schema_version":1,"ts_ms":1739000000091,"actor":{"kind":"agent","id":"evolve"},"kind":"patch.proposed","payload":{"artifacts":[{"hash":null,"kind":"git.diff","metadata":{},"summary":"persist counter","uri":"file://.yoyo/artifacts/patch_9.diff"}],"base_project_ref":null,"base_state_version":0,"created_by":{"id":"evolve","kind":"agent"},"evidence":["failure_1"],"expected_effects":[{"TestPasses":{"name":"retry_timeout"}}],"id":"patch_9","ops":[{"CreateRelation":{"from":"patch_9","props":{},"rel":"advances","to":"goal_retry"}}],"preconditions":[{"StateVersionIs":0}],"status":"Proposed","summary":"counter survives timeouts","title":"persist retry counter"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000e","schema_version":1,"ts_ms":1739000000098,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"patch_9","kind":"patch","props":{"base_project_ref":null,"base_state_version":0,"expected_effects":[{"TestPasses":{"name":"retry_timeout"}}],"preconditions":[{"StateVersionIs":0}],"status":"Proposed","summary":"counter survives timeouts","title":"persist retry counter"}}},{"CreateRelation":{"from":"patch_9","props":{},"rel":"addresses","to":"failure_1"}},{"AttachArtifact":{"artifact":{"hash":null,"kind":"git.diff","metadata":{},"summary":"persist counter","uri":"file://.yoyo/artifacts/patch_9.diff"},"id":"patch_9"}},{"CreateRelation":{"from":"patch_9","props":{},"rel":"advances","to":"goal_retry"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000d","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000f","schema_version":1,"ts_ms":1739000000105,"actor":{"kind":"tool","id":"cargo"},"kind":"tool.called","payload":{"id":"tool_1","input_summary":"cargo test retry","metadata":{},"output_summary":"ok, 1 passed","run_id":"run_42","success":true,"tool":"cargo test"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0010","schema_version":1,"ts_ms":1739000000112,"actor":{"kind":"tool","id":"cargo"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"tool_1","kind":"tool_call","props":{"input_summary":"cargo test retry","metadata":{},"output_summary":"ok, 1 passed","run_id":"run_42","success":true,"tool":"cargo test"}}},{"CreateRelation":{"from":"tool_1","props":{},"rel":"produced_by","to":"run_42"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000f","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0011","schema_version":1,"ts_ms":1739000000119,"actor":{"kind":"agent","id":"evolve"},"kind":"model.called","payload":{"id":"node_4b1e","metadata":{},"model":"claude-opus-4-6","output_summary":null,"prompt_summary":"plan the retry fix","run_id":"run_42"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0012","schema_version":1,"ts_ms":1739000000126,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"node_4b1e","kind":"model_call","props":{"metadata":{},"model":"claude-opus-4-6","output_summary":null,"prompt_summary":"plan the retry fix","run_id":"run_42"}}},{"CreateRelation":{"from":"node_4b1e","props":{},"rel":"produced_by","to":"run_42"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0011","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0013","schema_version":1,"ts_ms":1739000000133,"actor":{"kind":"agent","id":"evolve"},"kind":"eval.finished","payload":{"command":"cargo test retry","id":"eval_5","metadata":{},"score":1.0,"status":"Passed"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0014","schema_version":1,"ts_ms":1739000000140,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"eval_5","kind":"eval","props":{"command":"cargo test retry","metadata":{},"score":1.0,"status":"Passed"}}},{"CreateRelation":{"from":"patch_9","props":{},"rel":"validated_by","to":"eval_5"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0013","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0015","schema_version":1,"ts_ms":1739000000147,"actor":{"kind":"agent","id":"evolve"},"kind":"decision.created","payload":{"decided_by":{"id":"evolve","kind":"agent"},"id":"decision_3","metadata":{},"reason":"eval passed; promote","status":"Approved"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0016","schema_version":1,"ts_ms":1739000000154,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"decision_3","kind":"decision","props":{"decided_by":{"id":"evolve","kind":"agent"},"metadata":{},"reason":"eval passed; promote","status":"Approved"}}},{"CreateRelation":{"from":"patch_9","props":{},"rel":"approved_by","to":"decision_3"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0015","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0017","schema_version":1,"ts_ms":1739000000161,"actor":{"kind":"system","id":"yoagent-state"},"kind":"patch.status_changed","payload":{"patch_id":"patch_9","reason":"eval passed","status":"Promoted"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0018","schema_version":1,"ts_ms":1739000000168,"actor":{"kind":"system","id":"yoagent-state"},"kind":"state.ops_applied","payload":[{"UpdateNode":{"id":"patch_9","props":{"status":"Promoted","status_reason":"eval passed"}}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0017","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0019","schema_version":1,"ts_ms":1739000000175,"actor":{"kind":"system","id":"yoagent-state"},"kind":"goal.status_changed","payload":{"goal_id":"goal_retry","reason":null,"status":"Satisfied"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001a","schema_version":1,"ts_ms":1739000000182,"actor":{"kind":"system","id":"yoagent-state"},"kind":"state.ops_applied","payload":[{"UpdateNode":{"id":"goal_retry","props":{"status":"Satisfied","status_reason":null}}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0019","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001b","schema_version":1,"ts_ms":1739000000189,"actor":{"kind":"system","id":"yoagent-state"},"kind":"task.status_changed","payload":{"reason":"fixed","status":"Done","task_id":"task_7"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001c","schema_version":1,"ts_ms":1739000000196,"actor":{"kind":"system","id":"yoagent-state"},"kind":"state.ops_applied","payload":[{"UpdateNode":{"id":"task_7","props":{"status":"Done","status_reason":"fixed"}}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001b","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001d","schema_version":1,"ts_ms":1739000000203,"actor":{"kind":"agent","id":"evolve"},"kind":"frame.created","payload":{"id":"frame_2","metadata":{},"parent":"frame_1","summary":"working set for the retry fix","title":"retry investigation"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001e","schema_version":1,"ts_ms":1739000000210,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"frame_2","kind":"frame","props":{"metadata":{},"summary":"working set for the retry fix","title":"retry investigation"}}},{"CreateRelation":{"from":"frame_2","props":{},"rel":"contained_in_frame","to":"frame_1"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001d","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001f","schema_version":1,"ts_ms":1739000000217,"actor":{"kind":"agent","id":"evolve"},"kind":"project.snapshot_recorded","payload":{"artifacts":[{"hash":null,"kind":"git-commit","metadata":{},"summary":null,"uri":"abc1234"}],"id":"snapshot_abc1234","metadata":{},"project":{"branch":"main","commit":"abc1234","repo":"yoyo-evolve","worktree":null}},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0020","schema_version":1,"ts_ms":1739000000224,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"snapshot_abc1234","kind":"project_snapshot","props":{"metadata":{},"project":{"branch":"main","commit":"abc1234","repo":"yoyo-evolve","worktree":null}}}},{"AttachArtifact":{"artifact":{"hash":null,"kind":"git-commit","metadata":{},"summary":null,"uri":"abc1234"},"id":"snapshot_abc1234"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001f","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0021","schema_version":1,"ts_ms":1739000000231,"actor":{"kind":"system","id":"yoagent-state"},"kind":"artifact.attached","payload":{"artifact":{"hash":null,"kind":"git-commit","metadata":{},"summary":null,"uri":"abc1234"},"node_id":"patch_9"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0022","schema_version":1,"ts_ms":1739000000238,"actor":{"kind":"system","id":"yoagent-state"},"kind":"state.ops_applied","payload":[{"AttachArtifact":{"artifact":{"hash":null,"kind":"git-commit","metadata":{},"summary":null,"uri":"abc1234"},"id":"patch_9"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0021","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0023","schema_version":1,"ts_ms":1739000000245,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"eval_6","kind":"eval","props":{"command":"cargo test","passed":true}}},{"CreateRelation":{"from":"patch_9","props":{"passed":true},"rel":"validated_by","to":"eval_6"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0024","schema_version":1,"ts_ms":1739000000252,"actor":{"kind":"user","id":"reviewer"},"kind":"state.ops_applied","payload":[{"CreateNode":{"id":"decision_4","kind":"decision","props":{"approved":true,"reason":"looks good"}}},{"CreateRelation":{"from":"patch_9","props":{},"rel":"approved_by","to":"decision_4"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0025","schema_version":1,"ts_ms":1739000000259,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateRelation":{"from":"failure_1","props":{},"rel":"blocks","to":"goal_retry"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0026","schema_version":1,"ts_ms":1739000000266,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"MarkStale":{"id":"hypothesis_2","reason":"superseded by eval_5"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0027","schema_version":1,"ts_ms":1739000000273,"actor":{"kind":"agent","id":"evolve"},"kind":"run.finished","payload":{"outcome":"promoted","run_id":"run_42"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}
{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0028","schema_version":1,"ts_ms":1739000000280,"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"UpdateNode":{"id":"run_42","props":{"outcome":"promoted","status":"finished"}}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0027","correlation_id":"run_42"}
"""  # noqa: E501

PATCH_PAIR = (12, 13)  # the patch.proposed line and its ops pair (0-based)
DECISION_OPS = 35  # record_decision (ops only), written by user:reviewer
BASE_VERSION = 9  # the graph version when the story proposes patch_9 (9 ops folded)


def canon(value: Any) -> str:
    """JSON text with sorted keys: equal iff structurally equal, type-strict
    like serde (``1`` != ``1.0``, ``true`` != ``1``), unlike Python's ``==``."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def expected_lines(run_id: str = "run_42", base_version: int = 0) -> list[dict[str, Any]]:
    lines = [
        json.loads(line)
        for line in REFERENCE.replace('"run_42"', json.dumps(run_id)).split("\n")
        if line
    ]
    lines[PATCH_PAIR[0]]["payload"]["base_state_version"] = base_version
    lines[PATCH_PAIR[1]]["payload"][0]["CreateNode"]["props"]["base_state_version"] = base_version
    return lines


def written(repo: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log_path(repo).read_text(encoding="utf-8").splitlines()]


def assert_like_reference(
    got: list[dict[str, Any]], expected: list[dict[str, Any]], any_actor: tuple[int, ...] = ()
) -> None:
    """Same kinds, payloads (ops included), actors and chaining, line by line."""
    assert [e["kind"] for e in got] == [e["kind"] for e in expected]
    at_got = {e["id"]: i for i, e in enumerate(got)}
    at_ref = {e["id"]: i for i, e in enumerate(expected)}
    for i, (mine, ref) in enumerate(zip(got, expected, strict=True)):
        where = f"line {i + 1} ({ref['kind']})"
        assert list(mine) == list(ref), where  # the eight keys, in the runtime's order
        assert mine["schema_version"] == 1, where
        assert canon(mine["payload"]) == canon(ref["payload"]), where
        cause = mine["causation_id"]
        assert (None if cause is None else at_got.get(cause, "?")) == (
            None if ref["causation_id"] is None else at_ref[ref["causation_id"]]
        ), where
        assert mine["correlation_id"] == ref["correlation_id"], where
        if ref["actor"]["kind"] == "system":  # ours is system:git-gasp, not yoagent-state
            assert mine["actor"]["kind"] == "system", where
        elif i not in any_actor:
            assert mine["actor"] == ref["actor"], where


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    init_repo(str(root), "evolve")
    return root


@pytest.fixture
def agent(repo: Path) -> Iterator[Agent]:
    with Agent.open(str(repo), worker="worker-1") as opened:
        yield opened


DIFF = P.artifact("git.diff", "file://.yoyo/artifacts/patch_9.diff", summary="persist counter")
COMMIT = P.artifact("git-commit", "abc1234")


def tell_the_story(agent: Agent) -> dict[str, str]:
    """REFERENCE §4.5 through the Python API; returns what each helper returned."""
    got = {
        "goal": agent.record_goal(
            "goal_retry", "Make retry reliable", "retries drop state after timeout"
        ),
        "run": agent.start_run("fix retry skill", run_id="run_42"),
        "task": agent.record_task(
            "task_7",
            "Investigate retry timeout",
            "find why retry state resets",
            "InProgress",
            goal="goal_retry",
        ),
        "observation": agent.record_observation(
            "observation_3", "retry counter resets", "attempt count is 0 after timeout"
        ),
        "failure": agent.record_failure(
            "failure_1", "retry timeout loses state", "attempt count resets"
        ),
        "hypothesis": agent.record_hypothesis(
            "hypothesis_2",
            "counter kept in memory only",
            "state is not persisted across timeouts",
            0.7,
            explains="failure_1",
        ),
        "patch": agent.propose_patch(
            "patch_9",
            "persist retry counter",
            "counter survives timeouts",
            evidence=["failure_1"],
            artifacts=[DIFF],
            ops=[P.relation("patch_9", "advances", "goal_retry")],
            preconditions=[{"StateVersionIs": 0}],
            expected_effects=[{"TestPasses": {"name": "retry_timeout"}}],
        ),
        "tool": agent.record_tool_call(
            "cargo test",
            "cargo test retry",
            "ok, 1 passed",
            True,
            node_id="tool_1",
            actor=Actor("tool", "cargo"),
        ),
        "model": agent.record_model_call(
            "claude-opus-4-6", "plan the retry fix", node_id="node_4b1e"
        ),
        "eval": agent.record_eval("eval_5", "cargo test retry", "Passed", 1.0, patch="patch_9"),
        "decision": agent.record_decision(
            "decision_3", "Approved", "eval passed; promote", target="patch_9"
        ),
        "patch_status": agent.update_patch_status("patch_9", "Promoted", "eval passed"),
        "goal_status": agent.update_goal_status("goal_retry", "Satisfied"),
        "task_status": agent.update_task_status("task_7", "Done", "fixed"),
        "frame": agent.record_frame(
            "frame_2", "retry investigation", "working set for the retry fix", parent="frame_1"
        ),
        "snapshot": agent.record_project_snapshot(
            runpayloads.project_ref("yoyo-evolve", "main", "abc1234"),
            [COMMIT],
            node_id="snapshot_abc1234",
        ),
        "artifact": agent.attach_artifact("patch_9", COMMIT),
        # the two low-level ops-only helpers (record_eval_result, record_decision)
        "eval_result": agent.record(
            runpayloads.ops_only(
                [
                    P.create_node("eval_6", "eval", {"command": "cargo test", "passed": True}),
                    P.relation("patch_9", "validated_by", "eval_6", {"passed": True}),
                ]
            )
        ).id,
        "low_decision": agent.record(
            runpayloads.ops_only(
                [
                    P.create_node(
                        "decision_4", "decision", {"approved": True, "reason": "looks good"}
                    ),
                    P.relation("patch_9", "approved_by", "decision_4"),
                ]
            ),
            Actor("user", "reviewer"),
        ).id,
        "link": agent.link("failure_1", "blocks", "goal_retry"),
        "ops": agent.apply_ops(
            [{"MarkStale": {"id": "hypothesis_2", "reason": "superseded by eval_5"}}]
        ),
    }
    got["closed"] = close_run(agent, "promoted").run_id
    return got


# -- (a) golden ------------------------------------------------------------------------------


def test_the_helpers_write_the_reference_lines(agent: Agent, repo: Path) -> None:
    returned = tell_the_story(agent)
    got = written(repo)
    assert_like_reference(got, expected_lines(base_version=BASE_VERSION))
    ids = [e["id"] for e in got]
    # entity helpers return the entity id; the others the id of the event they end with
    assert returned["goal"] == "goal_retry" and returned["run"] == "run_42"
    assert returned["patch"] == "patch_9" and returned["model"] == "node_4b1e"
    assert returned["tool"] == "tool_1" and returned["snapshot"] == "snapshot_abc1234"
    for name, line in [("patch_status", 23), ("goal_status", 25), ("task_status", 27)]:
        assert returned[name] == ids[line], name
    for name, line in [("artifact", 33), ("eval_result", 34), ("link", 36), ("ops", 37)]:
        assert returned[name] == ids[line], name
    assert returned["closed"] == "run_42"


def test_the_reference_story_folds_to_the_reference_graph(agent: Agent) -> None:
    tell_the_story(agent)
    graph = agent.graph
    assert (len(graph.nodes), len(graph.relations), graph.version) == (15, 13, 36)


def test_chaining_inside_and_outside_a_run(agent: Agent, repo: Path) -> None:
    agent.record_goal("goal_a", "outside")
    run_id = agent.start_run("inside")
    agent.record_observation("observation_a", "seen")
    close_run(agent, "done")
    agent.link("observation_a", "observes", "goal_a")  # after the run: a root again
    goal, goal_ops, started, run_ops, obs, obs_ops, finished, fin_ops, link = written(repo)
    assert goal["causation_id"] is None and goal["correlation_id"] is None
    assert goal_ops["causation_id"] == goal["id"] and goal_ops["correlation_id"] is None
    assert started["causation_id"] is None and started["correlation_id"] == run_id
    assert run_ops["causation_id"] == started["id"] and run_ops["correlation_id"] == run_id
    for domain, ops in [(obs, obs_ops), (finished, fin_ops)]:
        assert domain["causation_id"] == started["id"] and domain["correlation_id"] == run_id
        assert ops["causation_id"] == domain["id"] and ops["correlation_id"] == run_id
    assert obs["payload"]["observed_in"] == run_id  # defaults to the open run
    assert link["causation_id"] is None and link["correlation_id"] is None


# -- (b) conformance ------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_a_repo_written_by_every_helper_passes_all_seven_checks(
    agent: Agent, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tell_the_story(agent)
    agent.start_run("the raw-layer helpers")
    agent.record_model_finished("claude-opus-4-6", "a plan", {"usage": {"tokens": 12}})
    agent.record_tool_finished("cargo test", "1 failed", False)
    agent.record_tool_finished("cargo test", "ok", True)
    close_run(agent, "done")
    code, out, _ = run(capsys, "check", str(repo))
    assert code == 0, out
    assert out.count("[PASS]") == 7 and "conformant" in out


# -- (c) refusals ---------------------------------------------------------------------------


def refused(repo: Path, call: Callable[[], object], code: int | None = None) -> GaspError:
    """``call`` raises a GaspError and leaves the log bytes as they were."""
    before = log_path(repo).read_bytes()
    with pytest.raises(GaspError) as caught:
        call()
    assert log_path(repo).read_bytes() == before
    if code is not None:
        assert caught.value.exit_code == code
    return caught.value


NEEDS_A_RUN: dict[str, Callable[[Agent], object]] = {
    "failure": lambda a: a.record_failure("failure_1", "t"),
    "patch": lambda a: a.propose_patch("patch_1", "t"),
    "eval": lambda a: a.record_eval("eval_1", "cargo test", "Passed"),
    "goal-status": lambda a: a.update_goal_status("goal_1", "Satisfied"),
    "task-status": lambda a: a.update_task_status("task_1", "Done"),
    "patch-status": lambda a: a.update_patch_status("patch_1", "Promoted"),
    "artifact": lambda a: a.attach_artifact("goal_1", COMMIT),
    "project-snapshot": lambda a: a.record_project_snapshot(runpayloads.project_ref("r")),
    "model-call": lambda a: a.record_model_call("m", "p"),
    "model-finished": lambda a: a.record_model_finished("m", "o"),
    "tool-call": lambda a: a.record_tool_call("t", "i"),
    "tool-finished": lambda a: a.record_tool_finished("t", "o", True),
}


@pytest.mark.parametrize("kind", sorted(NEEDS_A_RUN))
def test_a_non_root_kind_outside_a_run_says_to_start_one(
    agent: Agent, repo: Path, kind: str
) -> None:
    agent.record_goal("goal_1", "g")
    agent.record_task("task_1", "t")
    agent.start_run("a run to propose the patch in")
    agent.propose_patch("patch_1", "p")
    agent.finish_run("done")
    agent.forget_run()
    error = refused(repo, lambda: NEEDS_A_RUN[kind](agent))
    assert "run start" in (error.hint or ""), error.hint


ALLOWED_OUTSIDE: dict[str, Callable[[Agent], object]] = {
    "goal": lambda a: a.record_goal(None, "g"),
    "task": lambda a: a.record_task(None, "t"),
    "observation": lambda a: a.record_observation(None, "o"),
    "hypothesis": lambda a: a.record_hypothesis(None, "h"),
    "decision": lambda a: a.record_decision(None, "Pending", "r"),
    "frame": lambda a: a.record_frame(None, "f"),
    "link": lambda a: a.link("a", "references", "b"),
    "ops": lambda a: a.apply_ops([P.create_node("node_1", "frame", {})]),
}


@pytest.mark.parametrize("kind", sorted(ALLOWED_OUTSIDE))
def test_root_kinds_are_recorded_outside_a_run(agent: Agent, repo: Path, kind: str) -> None:
    made = ALLOWED_OUTSIDE[kind](agent)
    lines = written(repo)
    assert lines and all(e["correlation_id"] is None for e in lines)
    assert lines[0]["causation_id"] is None
    assert isinstance(made, str) and made.split("_")[0] in {kind, "event"}
    generated = made.split("_")[-1]
    assert len(generated) == 32 and int(generated, 16) >= 0


MISSING_NODE: dict[str, Callable[[Agent], object]] = {
    "goal-status": lambda a: a.update_goal_status("goal_missing", "Satisfied"),
    "task-status": lambda a: a.update_task_status("task_missing", "Done", "x"),
    "patch-status": lambda a: a.update_patch_status("patch_missing", "Promoted"),
    "artifact": lambda a: a.attach_artifact("node_missing", COMMIT),
    "UpdateNode": lambda a: a.apply_ops([P.update_node("node_missing", {"x": 1})]),
    "TombstoneNode": lambda a: a.apply_ops([{"TombstoneNode": {"id": "n_x", "reason": "r"}}]),
    "MarkStale": lambda a: a.apply_ops([{"MarkStale": {"id": "n_x", "reason": "r"}}]),
}


@pytest.mark.parametrize("kind", sorted(MISSING_NODE))
def test_an_update_of_a_missing_node_is_refused(agent: Agent, repo: Path, kind: str) -> None:
    """A helper's id argument naming no node is bad input (exit 2); raw ops
    that a fold would skip are refused as findings (exit 1)."""
    agent.start_run("t")
    code = FINDINGS if kind[0].isupper() else USAGE
    error = refused(repo, lambda: MISSING_NODE[kind](agent), code)
    assert "does not exist" in error.message


def test_an_undeclared_node_kind_or_relation_is_refused(agent: Agent, repo: Path) -> None:
    error = refused(repo, lambda: agent.apply_ops([P.create_node("w_1", "widget", {})]), FINDINGS)
    assert "node kind `widget` is not declared" in error.message
    error = refused(repo, lambda: agent.link("a", "likes", "b"), FINDINGS)
    assert "relation `likes` is not declared" in error.message


BAD_STATUS: dict[str, Callable[[Agent], object]] = {
    "eval": lambda a: a.record_eval("eval_1", "c", "passed"),
    "decision": lambda a: a.record_decision("decision_1", "Yes", "r"),
    "goal-status": lambda a: a.update_goal_status("goal_1", "Done"),
    "task-status": lambda a: a.update_task_status("task_1", "Satisfied"),
    "patch-status": lambda a: a.update_patch_status("patch_1", "Merged"),
}


@pytest.mark.parametrize("kind", sorted(BAD_STATUS))
def test_an_unknown_status_is_refused(agent: Agent, repo: Path, kind: str) -> None:
    agent.record_goal("goal_1", "g")
    agent.record_task("task_1", "t")
    agent.start_run("t")
    agent.propose_patch("patch_1", "p")
    error = refused(repo, lambda: BAD_STATUS[kind](agent), USAGE)
    assert "must be one of" in error.message


@pytest.mark.parametrize("kind", ["goal", "task"])
def test_an_unknown_goal_or_task_status_is_refused(agent: Agent, repo: Path, kind: str) -> None:
    call = {
        "goal": lambda: agent.record_goal("goal_1", "g", status="Done"),
        "task": lambda: agent.record_task("task_1", "t", status="Satisfied"),
    }[kind]
    refused(repo, call, USAGE)


RECREATE: dict[str, Callable[[Agent], object]] = {
    "goal": lambda a: a.record_goal("goal_1", "again"),
    "task": lambda a: a.record_task("goal_1", "a task named like the goal"),
    "observation": lambda a: a.record_observation("goal_1", "o"),
    "hypothesis": lambda a: a.record_hypothesis("goal_1", "h"),
    "decision": lambda a: a.record_decision("goal_1", "Pending", "r"),
    "frame": lambda a: a.record_frame("goal_1", "f"),
    "failure": lambda a: a.record_failure("goal_1", "f"),
    "patch": lambda a: a.propose_patch("goal_1", "p"),
    "eval": lambda a: a.record_eval("goal_1", "c", "Passed"),
}


@pytest.mark.parametrize("kind", sorted(RECREATE))
def test_re_recording_an_existing_entity_is_refused(agent: Agent, repo: Path, kind: str) -> None:
    agent.record_goal("goal_1", "g")
    agent.start_run("t")
    error = refused(repo, lambda: RECREATE[kind](agent), FINDINGS)
    assert "`goal_1` already exists" in error.message


RECREATE_RAW: dict[str, Callable[[Agent], object]] = {
    "model-call": lambda a: a.record_model_call("m", "p", node_id="goal_1"),
    "tool-call": lambda a: a.record_tool_call("t", "i", node_id="goal_1"),
    "project-snapshot": lambda a: a.record_project_snapshot(
        runpayloads.project_ref("r"), node_id="goal_1"
    ),
    "ops": lambda a: a.apply_ops([P.create_node("goal_1", "goal", {})]),
}


@pytest.mark.parametrize("kind", sorted(RECREATE_RAW))
def test_re_creating_an_existing_node_by_any_path_is_refused(
    agent: Agent, repo: Path, kind: str
) -> None:
    agent.record_goal("goal_1", "g")
    agent.start_run("t")
    refused(repo, lambda: RECREATE_RAW[kind](agent), FINDINGS)


def test_a_second_run_start_is_refused(agent: Agent, repo: Path) -> None:
    first = agent.start_run("first")
    error = refused(repo, lambda: agent.start_run("second"))
    assert f"run {first} is already open" in error.message
    assert "run close" in (error.hint or "")


def test_float_fields_are_written_as_floats(agent: Agent, repo: Path) -> None:
    agent.record_hypothesis("hypothesis_1", "h", confidence=1)
    agent.start_run("t")
    agent.record_eval("eval_1", "c", "Passed", score=1)
    lines = written(repo)
    assert canon(lines[0]["payload"]["confidence"]) == "1.0"
    assert canon(lines[-2]["payload"]["score"]) == "1.0"


def test_propose_patch_takes_a_base_state_version(agent: Agent) -> None:
    agent.record_goal("goal_1", "g")
    agent.start_run("t")
    propose: Any = agent.propose_patch
    propose("patch_1", "p", base_state_version=0)
    props: Any = agent.graph.nodes["patch_1"].props
    assert props["base_state_version"] == 0


def test_a_status_change_names_a_node_of_its_kind(agent: Agent, repo: Path) -> None:
    agent.record_goal("goal_1", "g")
    agent.start_run("t")
    error = refused(repo, lambda: agent.update_task_status("goal_1", "Done", "x"), USAGE)
    assert error.message == "`goal_1` is a goal, not a task"


def test_patch_conditions_are_the_runtimes_enums(agent: Agent) -> None:
    """A precondition or expected effect the runtime's StatePatch cannot read
    is refused before anything is written; a float field is written as one."""
    agent.start_run("t")
    before = agent.graph.version
    bad = [
        ({"Bogus": 1}, "unknown precondition `Bogus`"),
        ({"StateVersionIs": -1.5}, "StateVersionIs must be a non-negative integer"),
        ({"TestStillFailing": "t"}, "TestStillFailing takes an object with name"),
        ({"FileHashIs": {"path": "p"}}, "FileHashIs: missing field `hash`"),
        ([{"NodeExists": "x"}], "a precondition is an object with one key"),
    ]
    for value, message in bad:
        with pytest.raises(GaspError, match=re.escape(message)) as caught:
            agent.propose_patch("patch_x", "p", preconditions=[value])
        assert caught.value.exit_code == 2
    with pytest.raises(GaspError, match=r"EvalScoreAtLeast\.value must be a finite number"):
        agent.propose_patch(
            "patch_x", "p", expected_effects=[{"EvalScoreAtLeast": {"metric": "m", "value": "1"}}]
        )
    assert agent.graph.version == before and "patch_x" not in agent.graph.nodes
    agent.propose_patch(
        "patch_x",
        "p",
        preconditions=[{"StateVersionIs": 3}, {"FileHashIs": {"path": "a", "hash": "h", "x": 1}}],
        expected_effects=[{"EvalScoreAtLeast": {"metric": "m", "value": 2}}],
    )
    payload = written(Path(agent.root))[-2]["payload"]
    assert canon(payload["expected_effects"][0]["EvalScoreAtLeast"]["value"]) == "2.0"
    assert payload["preconditions"][1] == {"FileHashIs": {"path": "a", "hash": "h", "x": 1}}


# -- (d) the command line -------------------------------------------------------------------


CLI_STORY = [  # REFERENCE §4.5 as `git gasp record` command lines (RUN: `run start`)
    (
        "goal_retry",
        "goal --id goal_retry --title 'Make retry reliable'"
        " --summary 'retries drop state after timeout'",
    ),
    ("RUN", "fix retry skill"),
    (
        "task_7",
        "task --payload-json '"
        '{"task_id":"task_7","title":"Investigate retry timeout","status":"InProgress",'
        '"summary":"find why retry state resets","goal":"goal_retry"}'
        "'",
    ),
    (
        "observation_3",
        "observation --id observation_3 --title 'retry counter resets'"
        " --summary 'attempt count is 0 after timeout'",
    ),
    (
        "failure_1",
        "failure --id failure_1 --title 'retry timeout loses state'"
        " --summary 'attempt count resets'",
    ),
    (
        "hypothesis_2",
        "hypothesis --id hypothesis_2 --title 'counter kept in memory only'"
        " --summary 'state is not persisted across timeouts' --confidence 0.7 --explains failure_1",
    ),
    (
        "patch_9",
        "patch --id patch_9 --title 'persist retry counter'"
        " --summary 'counter survives timeouts' --evidence failure_1"
        f" --artifact-json '{json.dumps(DIFF)}'"
        """ --op-json '{"CreateRelation":{"from":"patch_9","props":{},"rel":"advances","""
        """"to":"goal_retry"}}'"""
        """ --precondition-json '{"StateVersionIs":0}'"""
        """ --expected-effect-json '{"TestPasses":{"name":"retry_timeout"}}'""",
    ),
    (
        "tool_1",
        "tool-call --tool 'cargo test' --input-summary 'cargo test retry'"
        " --output-summary 'ok, 1 passed' --success --id tool_1 --actor tool:cargo",
    ),
    (
        "node_4b1e",
        "model-call --model claude-opus-4-6 --prompt-summary 'plan the retry fix' --id node_4b1e",
    ),
    (
        "eval_5",
        "eval --id eval_5 --command 'cargo test retry' --status Passed --score 1 --patch patch_9",
    ),
    (
        "decision_3",
        "decision --id decision_3 --status Approved"
        " --reason 'eval passed; promote' --target patch_9",
    ),
    ("patch_9", "patch-status --id patch_9 --status Promoted --reason 'eval passed'"),
    ("goal_retry", "goal-status --id goal_retry --status Satisfied"),
    ("task_7", "task-status --id task_7 --status Done --reason fixed"),
    (
        "frame_2",
        "frame --id frame_2 --title 'retry investigation'"
        " --summary 'working set for the retry fix' --parent frame_1 --allow-missing",
    ),
    (
        "snapshot_abc1234",
        "project-snapshot --project yoyo-evolve --branch main --commit abc1234"
        """ --artifact-json '{"kind":"git-commit","uri":"abc1234"}' --id snapshot_abc1234""",
    ),
    ("patch_9", "artifact --node patch_9 --kind git-commit --uri abc1234"),
    (
        "EVENT",
        """ops --json-ops '[{"CreateNode":{"id":"eval_6","kind":"eval","props":"""
        """{"command":"cargo test","passed":true}}},{"CreateRelation":{"from":"patch_9","""
        """"props":{"passed":true},"rel":"validated_by","to":"eval_6"}}]'""",
    ),
    (
        "EVENT",
        """ops --json-ops '[{"CreateNode":{"id":"decision_4","kind":"decision","""
        """"props":{"approved":true,"reason":"looks good"}}},{"CreateRelation":{"""
        """"from":"patch_9","props":{},"rel":"approved_by","to":"decision_4"}}]'""",
    ),
    ("EVENT", "link failure_1 blocks goal_retry"),
    (
        "EVENT",
        """ops --json-ops '[{"MarkStale":{"id":"hypothesis_2","""
        """"reason":"superseded by eval_5"}}]'""",
    ),
]


def cli_story(capsys: pytest.CaptureFixture[str], repo: Path) -> str:
    """Run :data:`CLI_STORY` and close the run; returns the run id."""
    at = ["-C", str(repo)]
    run_id = ""
    for printed, line in CLI_STORY:
        if printed == "RUN":
            code, out, err = run(capsys, "run", "start", "--task", line, *at)
            run_id = out.strip()
        else:
            code, out, err = run(capsys, "record", *shlex.split(line), *at)
            assert out.strip().startswith("event_") if printed == "EVENT" else out == printed + "\n"
        assert code == 0, f"{line}: {err}"
    code, _, err = run(capsys, "run", "close", "--outcome", "promoted", *at)
    assert code == 0, err
    return run_id


def test_the_record_commands_write_the_reference_lines(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id = cli_story(capsys, repo)
    expected = expected_lines(run_id, BASE_VERSION)
    assert_like_reference(written(repo), expected, any_actor=(DECISION_OPS,))
    code, out, _ = run(capsys, "check", str(repo))
    assert code == 0 and out.count("[PASS]") == 7, out


def test_json_output_names_the_id_and_every_event(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    at = ("-C", str(repo))
    code, out, _ = run(capsys, "record", "goal", "--title", "g", "--json", *at)
    made = json.loads(out)
    assert code == 0 and set(made) == {"id", "event_ids"}
    assert made["id"].startswith("goal_")
    assert made["event_ids"] == [e["id"] for e in written(repo)]
    run(capsys, "run", "start", "--task", "t", *at)
    code, out, _ = run(
        capsys,
        "record",
        "tool-finished",
        "--tool",
        "cargo",
        "--output-summary",
        "boom",
        "--failure",
        "--json",
        *at,
    )
    made = json.loads(out)
    kinds = [e["kind"] for e in written(repo)[-3:]]
    assert kinds == ["failure.observed", "state.ops_applied", "tool.finished"]
    assert made["event_ids"] == [e["id"] for e in written(repo)[-3:]]
    assert made["id"] == made["event_ids"][-1]


def test_flags_override_payload_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    at = ("-C", str(repo))
    payload = {"task_id": "task_1", "title": "old", "status": "Blocked", "metadata": {"k": [1]}}
    code, out, err = run(
        capsys, "record", "task", "--payload-json", json.dumps(payload), "--title", "new", *at
    )
    assert (code, out) == (0, "task_1\n"), err
    task = written(repo)[0]["payload"]
    assert (task["title"], task["status"], task["metadata"]) == ("new", "Blocked", {"k": [1]})
    run(capsys, "run", "start", "--task", "t", *at)
    snapshot = {"project": {"repo": "r", "branch": "b"}, "node_id": "snap_1"}
    code, _, err = run(
        capsys,
        "record",
        "project-snapshot",
        "--payload-json",
        json.dumps(snapshot),
        "--commit",
        "c1",
        *at,
    )
    assert code == 0, err
    project = written(repo)[-2]["payload"]["project"]
    assert project == {"repo": "r", "branch": "b", "commit": "c1", "worktree": None}
    code, _, err = run(
        capsys,
        "record",
        "artifact",
        "--payload-json",
        '{"node_id":"snap_1","artifact":{"kind":"k","uri":"u"}}',
        "--hash",
        "h",
        *at,
    )
    assert code == 0, err
    assert written(repo)[-2]["payload"]["artifact"] == {
        "hash": "h",
        "kind": "k",
        "metadata": {},
        "summary": None,
        "uri": "u",
    }


BAD_INPUT: list[tuple[list[str], int, str]] = [
    (["goal", "--title", "g", "--metadata-json", "{oops"], USAGE, "not valid JSON"),
    (["goal", "--payload-json", "[1]"], USAGE, "must be a JSON object"),
    (["goal", "--payload-json", '{"title":"g","id":"x"}'], USAGE, "unknown key 'id'"),
    (["goal", "--payload-json", '{"title":7}'], USAGE, "must be a string"),
    (["goal", "--summary", "no title"], USAGE, "needs --title"),
    (["task", "--title", ""], USAGE, "`title` (--title) must say something, not be empty"),
    (["frame", "--title", "  "], USAGE, "must say something, not be only whitespace"),
    (["goal", "--payload-json", '{"title":" \\t"}'], USAGE, "must say something"),
    (["patch", "--title", "\n"], USAGE, "must say something"),
    (["goal", "--title", "g", "--status", "Done"], USAGE, "is not a valid status"),
    (["goal", "--title", "g", "--owner", "alice"], USAGE, "is not KIND:ID"),
    (["goal", "--id", "goal_1", "--title", "again"], FINDINGS, "already exists"),
    (["eval", "--command", "c", "--status", "passed"], USAGE, "is not a valid status"),
    (["failure", "--title", "f"], FINDINGS, "invalid root"),
    (["tool-call", "--tool", "t", "--input-summary", "i"], FINDINGS, "needs an open run"),
    (["goal-status", "--id", "goal_missing", "--status", "Open"], USAGE, "does not exist"),
    (["goal-status", "--id", "goal_", "--status", "Open"], USAGE, "does not exist"),
    (["hypothesis", "--title", "h", "--confidence", "nan"], USAGE, "finite"),
    (["patch", "--title", "p", "--artifact-json", '{"uri":"u"}'], USAGE, "needs 'kind'"),
    (["ops", "--json-ops", '{"MarkStale":{}}'], USAGE, "must be a JSON array"),
    (
        ["ops", "--json-ops", '[{"CreateNode":{"id":"w","kind":"widget","props":{}}}]'],
        FINDINGS,
        "not declared",
    ),
    (["ops", "--json-ops", '[{"Frobnicate":{}}]'], USAGE, "not state ops"),
    (["ops", "--json-ops", "[]"], USAGE, "no ops to apply"),
    (["link", "a", "serves"], USAGE, "needs TO"),
    (["link", "goal_1", "likes", "goal_1"], FINDINGS, "not declared"),
    (["link", "goal_l", "serves", "goal_1"], USAGE, "FROM goal_l: no node has that id"),
    (
        ["eval", "--command", "c", "--status", "Passed", "--patch", "patch_9"],
        USAGE,
        "--patch patch_9: no node has that id",
    ),
]


@pytest.mark.parametrize(("argv", "code", "message"), BAD_INPUT, ids=lambda v: str(v)[:40])
def test_bad_input_is_one_error_and_one_hint(
    repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: int, message: str
) -> None:
    assert run(capsys, "record", "goal", "--id", "goal_1", "--title", "g", "-C", str(repo))[0] == 0
    before = log_path(repo).read_bytes()
    got, out, err = run(capsys, "record", *argv, "-C", str(repo))
    assert (got, out) == (code, ""), err
    lines = err.splitlines()
    assert lines[0].startswith("error: ") and message in lines[0], err
    assert len(lines) == 2 and lines[1].startswith("hint: "), err
    assert log_path(repo).read_bytes() == before


def test_a_blank_title_or_task_is_refused_with_a_hint(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = log_path(repo).read_bytes()
    for task in ("", "   "):
        code, out, err = run(capsys, "run", "start", "--task", task, "-C", str(repo))
        assert (code, out) == (USAGE, ""), err
        assert err.splitlines()[0].startswith("error: start_run: `task` (--task) must say")
        assert err.splitlines()[1] == (
            "hint: give a one-line task, e.g. git gasp run start --task 'Fix the flaky login test'"
        )
    agent = Agent.open(str(repo), worker="w")
    for call in (
        lambda: agent.start_run(" "),
        lambda: agent.record_task(None, "\t"),
        lambda: agent.record_observation(None, ""),
        lambda: agent.record_hypothesis(None, " "),
    ):
        with pytest.raises(GaspError, match="must say something") as caught:
            call()
        assert caught.value.exit_code == USAGE
    assert log_path(repo).read_bytes() == before and agent.open_run is None


def test_missing_nodes_are_refused_inside_a_run(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "run", "start", "--task", "t", "-C", str(repo))
    before = log_path(repo).read_bytes()
    for argv in (
        ["goal-status", "--id", "goal_missing", "--status", "Satisfied"],
        ["artifact", "--node", "n_missing", "--kind", "k", "--uri", "u"],
    ):
        code, _, err = run(capsys, "record", *argv, "-C", str(repo))
        assert code == USAGE and "does not exist" in err, err  # an unknown id: bad input
    assert log_path(repo).read_bytes() == before
    code, _, err = run(capsys, "run", "start", "--task", "again", "-C", str(repo))
    assert code != 0 and "already open" in err


def test_every_record_option_has_help() -> None:
    assert isinstance(record_group, click.Group)
    for name, command in record_group.commands.items():
        assert command.help, name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help and param.help.strip(), f"record {name} {param.opts}"


TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


def test_a_secret_is_refused_before_it_is_written(
    agent: Agent, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from git_gasp.agent.projecting import add_fact

    log = log_path(repo).read_bytes()
    error = refused(repo, lambda: agent.record_observation(None, f"token {TOKEN}"))
    assert error.exit_code == FINDINGS
    assert error.message == (
        "state/events.jsonl: the observation.created event not written: "
        "it carries what looks like a GitHub token (ghp_…) [github-token]"
    )
    assert "nothing was written" in (error.hint or "")
    assert log_path(repo).read_bytes() == log
    facts = repo / "memory" / "facts.jsonl"
    before = facts.read_bytes() if facts.exists() else b""
    with pytest.raises(GaspError, match=r"memory/facts\.jsonl: the fact not written"):
        add_fact(agent, "deploy key AKIAABCDEFGHIJKLMNOP", [])
    assert (facts.read_bytes() if facts.exists() else b"") == before
    # the command says it in one line, with the hint, exit 1
    capsys.readouterr()
    code = main(["record", "goal", "--title", f"use {TOKEN}", "-C", str(repo)])
    err = capsys.readouterr().err
    assert code == FINDINGS and err.startswith("error: state/events.jsonl: the goal.created")
    assert log_path(repo).read_bytes() == log


def test_escaped_white_space_does_not_hide_a_secret(agent: Agent, repo: Path) -> None:
    from git_gasp.agent.projecting import add_fact

    error = refused(repo, lambda: agent.record_observation(None, "rotated; password:\thunter2x9"))
    assert "[password-assignment]" in error.message
    with pytest.raises(GaspError, match=r"password-assignment"):
        add_fact(agent, "db password:\nhunter2x9", [])


def test_a_refused_run_start_leaves_no_lease(agent: Agent, repo: Path) -> None:
    refused(repo, lambda: agent.start_run(f"deploy with {TOKEN}"))
    assert agent.open_run is None
    other = Agent.open(str(repo), worker="worker-2")
    other.start_run("the next worker's run")  # not told the lease is held
    assert other.open_run is not None


def test_what_the_hooks_would_refuse_is_not_written(agent: Agent, repo: Path) -> None:
    import subprocess

    from git_gasp.agent.projecting import add_fact

    subprocess.run(["git", "-C", str(repo), "config", "gasp.maxLineBytes", "1000"], check=True)
    fresh = Agent.open(str(repo), worker="worker-1")  # reads the cap once
    error = refused(repo, lambda: fresh.record_goal(None, "T" * 3000), FINDINGS)
    assert "over the 1,000-byte cap (gasp.maxLineBytes)" in error.message
    with pytest.raises(GaspError, match="over the 1,000-byte cap"):
        add_fact(fresh, "F" * 3000, [])
    # text that is not UTF-8 (a shell's stray bytes arrive as lone surrogates)
    with pytest.raises(GaspError, match="not valid UTF-8") as caught:
        add_fact(fresh, "bad \udcff", [])
    assert caught.value.exit_code == USAGE
    fresh.start_run("a run")
    error = refused(repo, lambda: close_run(fresh, "ok", sessions=["a:\udcff"]), USAGE)
    assert error.message == "the outcome, goal or session is not valid UTF-8 text"
    assert fresh.open_run is not None


def test_the_api_refuses_arguments_of_the_wrong_type(repo: Path) -> None:
    from git_gasp.core.event import Actor
    from git_gasp.errors import GaspError

    agent = Agent.open(str(repo), worker="w")
    before = log_path(repo).read_bytes()
    calls = [
        (lambda: agent.record_goal(None, 5), "`title` must be str, not integer `5`"),  # type: ignore[arg-type]
        (lambda: agent.record_goal(None, "t", owner="user:x"), "`owner` must be Actor or None"),  # type: ignore[arg-type]
        (
            lambda: agent.record_hypothesis(None, "h", confidence="high"),
            "`confidence` must be float",
        ),  # type: ignore[arg-type]
        (lambda: agent.record_goal("   ", "t"), "without surrounding spaces"),
    ]
    for call, message in calls:
        with pytest.raises(GaspError) as caught:
            call()
        assert message in caught.value.message
    agent.start_run("t")
    started = log_path(repo).read_bytes()
    with pytest.raises(GaspError) as caught:
        agent.propose_patch(None, "p", evidence="goal_1")  # type: ignore[arg-type]
    assert "`evidence` must be a list of str, not string" in caught.value.message
    assert log_path(repo).read_bytes() == started and started.startswith(before)
    assert agent.record_goal(None, "ok", owner=Actor("user", "ann")).startswith("goal_")

    class Status(enum.StrEnum):
        OPEN = "Open"

    class Score(float):
        pass

    assert agent.record_goal(None, "enum", status=Status.OPEN).startswith("goal_")  # subclasses
    assert agent.record_hypothesis(None, "h", confidence=Score(0.5)).startswith("hypothesis_")
    with pytest.raises(GaspError):
        agent.record_hypothesis(None, "h", confidence=True)  # a bool is no number here
    assert agent.record_hypothesis(None, "h", confidence=1).startswith(
        "hypothesis_"
    )  # an int is a float


def test_a_payload_deeper_than_the_parser_reads_is_never_written(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def metadata(depth: int) -> str:
        return '{"x":' + "[" * depth + "]" * depth + "}"

    before = log_path(repo).read_bytes()
    code, _, err = run(capsys, "record", "goal", "--title", "o", "--metadata-json", metadata(122),
                       "-C", str(repo))  # fmt: skip
    assert code == 2 and "nests deeper than" in err
    assert log_path(repo).read_bytes() == before
    code, _, err = run(capsys, "record", "goal", "--title", "o", "--metadata-json", metadata(121),
                       "-C", str(repo))  # fmt: skip
    assert code == 0, err  # the deepest the log's parser reads back
    assert run(capsys, "check", str(repo))[0] == 0
