"""Stagecraft from Python: pipeline-parallel schedules as data.

Generate any registered schedule, validate it, simulate it with a project's model, cluster and
costs (op times, idle causes and memory curves as numpy arrays), lower it to per-rank programs,
read and write torch.distributed.pipelining's CSV and Stagecraft's JSON, and search the
configurations (pp, dp, tp, micro-batches, chunks, schedule, ZeRO stage) that fit the memory, and
edit a schedule's order by hand (Editor). Every call goes to
the same C++ core as stagecraft-cli and the desktop app; errors are stagecraft.Error with the
core's stable id (.id), ValidationError with the .field it concerns, ParseError with .line and
.column.

    import stagecraft as sc
    project = sc.Project().with_overrides({"parallel.pp": 4, "parallel.microbatches": 8})
    sim = sc.simulate(project, "zb-h1")
    print(sim.makespan, sim.bubble)
"""

from ._stagecraft import (  # noqa: F401
    OP_KINDS,
    Editor,
    Error,
    Lowered,
    ParseError,
    Project,
    RuntimeFit,
    Schedule,
    SearchResult,
    Simulation,
    ValidationError,
    fit_torch_run,
    generate,
    load_fit,
    calibrate,
    lower,
    overlay,
    parse_schedule_json,
    parse_torch_csv,
    project_fields,
    read_schedule,
    schedules,
    search,
    simulate,
    validate,
    write_schedule,
)

__all__ = [
    "OP_KINDS",
    "Editor",
    "Error",
    "Lowered",
    "ParseError",
    "Project",
    "RuntimeFit",
    "Schedule",
    "SearchResult",
    "Simulation",
    "ValidationError",
    "fit_torch_run",
    "generate",
    "load_fit",
    "calibrate",
    "lower",
    "overlay",
    "parse_schedule_json",
    "parse_torch_csv",
    "project_fields",
    "read_schedule",
    "schedules",
    "search",
    "simulate",
    "validate",
    "write_schedule",
]
