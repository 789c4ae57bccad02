"""Steps about the telemetry log: the capture lines the plugin writes (see CONTRACT.md)."""

from behave import then

from hermetic.contract.capture_log import error_lines, provider_problems, run_problems
from hermetic.contract.hostile_names import naming_problems
from hermetic.contract.non_alert_notes import notes_of
from hermetic.contract.schema import LOG
from hermetic.contract.store_errors import (
    RECOVERED,
    STORE_ERROR,
    cause_problems,
    lost_claims,
    recovery_lines,
    unnamed_store_file,
)
from hermetic.parts.alert_records import AlertRecords
from hermetic.parts.spool_appends import (
    SpoolAppends,
    lost_alert_problems,
    lost_lines,
    says_waiting,
    unnamed_spools,
)
from hermetic.parts.spool_faults import SpoolFaults, deletion_errors


def _lines(captures):
    return "\n".join(f"  {capture.line}" for capture in captures) or "  (none)"


@then('the telemetry log reports the model "{model}" as unavailable with code {code:d}')
def step_log_reports(context, model, code):
    """telemetry.log holds a capture line for the model with the status code."""
    world = context.world
    captures = world.use(AlertRecords).captures()
    mine = [capture for capture in captures if capture.model == model]
    world.check(
        mine,
        f"expected a 'model-unavailable {code} captured: model={model!r} …' line in the "
        f"contract's log, {LOG}; found:\n" + _lines(captures),
    )
    world.check(
        any(capture.code == code for capture in mine),
        f"expected a capture line with code {code}, found:\n" + _lines(mine),
    )


@then('the telemetry log names the reason "{reason}" and the run of the job that failed')
def step_log_names_reason_and_run(context, reason):
    """Every capture line gives Hermes' reason and the failed run's session (cron_<job>_…)."""
    world = context.world
    captures = world.use(AlertRecords).captures()
    problems = run_problems(captures, reason, world.scheduler.only_job)
    world.check(not problems, "; ".join(problems) + "; found:\n" + _lines(captures))


@then('every capture line in the telemetry log names the provider "{provider}"')
def step_log_names_provider(context, provider):
    """Each capture line gives the provider of the failed request, as the alert's row does."""
    world = context.world
    captures = world.use(AlertRecords).captures()
    problems = provider_problems(captures, provider)
    world.check(not problems, "; ".join(problems) + "; found:\n" + _lines(captures))


@then("the telemetry log holds no error")
def step_log_no_error(context):
    """telemetry.log has no ERROR or CRITICAL line and no traceback: the capture went cleanly."""
    world = context.world
    errors = error_lines(world.use(AlertRecords).log)
    world.check(not errors, "expected no error in telemetry.log, found:\n" + "\n".join(errors))


@then("the telemetry log holds an error")
def step_log_error(context):
    """telemetry.log has an ERROR or CRITICAL line or a traceback: the failure was said."""
    world = context.world
    errors = error_lines(world.use(AlertRecords).log)
    world.check(errors, "expected an ERROR line or a traceback in telemetry.log, found none")


@then('the telemetry log says why the alert for "{model}" was lost: "{why}"')
def step_store_error_names(context, model, why):
    """One error line names the model, the alert database's file and why it refused the alert."""
    world = context.world
    records = world.use(AlertRecords)
    errors = error_lines(records.log)
    wanted = (model, str(records.database), why)
    world.check(
        any(all(part in line for part in wanted) for line in errors),
        f"expected an error line naming {model!r}, {records.database} and {why!r}; found:\n"
        + ("\n".join(f"  {line}" for line in errors) or "  (none)"),
    )


@then("the telemetry log reports no unavailable model")
def step_log_silent(context):
    """telemetry.log holds no capture line at all (a plugin that keeps no log has none)."""
    world = context.world
    captures = world.use(AlertRecords).captures()
    world.check(not captures, "expected no capture line, found:\n" + _lines(captures))


@then('the telemetry log reports {count:d} captures for "{model}"')
def step_log_capture_count(context, count, model):
    """telemetry.log holds exactly that many capture lines for the model."""
    world = context.world
    mine = [c for c in world.use(AlertRecords).captures() if c.model == model]
    world.check(
        len(mine) == count, f"expected {count} capture lines for {model!r}, found {len(mine)}"
    )


@then('the telemetry log explains that the alert for "{model}" could not be stored because {cause}')
def step_store_error_cause(context, model, cause):
    """telemetry.log says the model's capture could not be stored, naming that cause only."""
    world = context.world
    errors = world.use(AlertRecords).log_lines(STORE_ERROR)
    problems = cause_problems(errors, cause, world.sandbox.hermes_home, model)
    world.check(not problems, "; ".join(problems))


@then("the telemetry log names the alert store's file where it says the alert could not be stored")
def step_store_error_names_file(context):
    """Every store-error line of telemetry.log names the database file it could not use."""
    world = context.world
    errors = world.use(AlertRecords).log_lines(STORE_ERROR)
    world.check(bool(errors), f"no line containing {STORE_ERROR!r}")
    unnamed = unnamed_store_file(errors, world.sandbox.hermes_home)
    world.check(
        not unnamed,
        "the store error does not say which database file:\n"
        + "\n".join(f"  {line.strip()}" for line in unnamed),
    )


@then("the telemetry log says the kept alert was stored once the fault was cleared")
def step_store_recovered(context):
    """telemetry.log, after its store error, has a line saying kept alerts reached the store,
    and no store error calls the alert lost."""
    world = context.world
    records = world.use(AlertRecords)
    lines = records.log_lines("")
    lost = lost_claims(lines, world.sandbox.hermes_home)
    world.check(not lost, "the alert was kept, yet the log calls it lost:\n" + "\n".join(lost))
    world.check(
        recovery_lines(lines, world.sandbox.hermes_home),
        "expected a line, after the store error, saying the kept alert reached the store "
        f"(words: {', '.join(RECOVERED)}); the log:\n" + ("\n".join(lines) or "  (empty)"),
    )


@then("the telemetry log says the plugin's spool could not be deleted")
def step_spool_not_deleted(context):
    """telemetry.log has an error line naming the spool file and saying it was not deleted."""
    world = context.world
    errors = error_lines(world.use(AlertRecords).log)
    name = world.use(SpoolFaults).file_name()
    world.check(
        deletion_errors(errors, name, world.sandbox.hermes_home),
        f"expected an error line saying {name} could not be deleted; errors:\n"
        + ("\n".join(errors) or "  (none)"),
    )


@then("the telemetry log holds no store error")
def step_no_store_error(context):
    """telemetry.log has no line saying a capture could not be stored."""
    world = context.world
    errors = world.use(AlertRecords).log_lines(STORE_ERROR)
    world.check(not errors, "expected no store error, found:\n" + "\n".join(errors))


@then("the telemetry log says that model's alert could not be stored, naming the model exactly")
def step_store_error_names_hostile(context):
    """Each store error spells the job's hostile model name as repr does, on one line."""
    world = context.world
    model = context.hostile_model
    problems = naming_problems(world.use(AlertRecords).log_lines(STORE_ERROR), model)
    world.check(not problems, f"store errors naming {model!r}: " + "; ".join(problems))


def _lost_lines(context, model):
    world = context.world
    lines = world.use(AlertRecords).log_lines(STORE_ERROR)
    lost = lost_lines(lines, model, world.sandbox.hermes_home)
    world.check(
        lost,
        f"expected a store error saying the alert for {model!r} was lost; store errors:\n"
        + ("\n".join(lines) or "  (none)"),
    )
    return lost


@then('the telemetry log says the alert for "{model}" was lost, with everything it held')
def step_lost_alert_whole(context, model):
    """A store error calls the model's alert lost and gives its code, time and message."""
    world = context.world
    codes = {c.code for c in world.use(AlertRecords).captures() if c.model == model}
    world.check(codes, f"expected a capture line for {model!r}, the alert's code")
    windows = [result.window for result in world.hermes.history]
    message = world.provider.error_message(model)
    problems = {
        line: lost_alert_problems(line, code, message, windows, world.sandbox.hermes_home)
        for line in _lost_lines(context, model)
        for code in codes
    }
    world.check(
        any(not found for found in problems.values()),
        "the line is the lost alert's only record, yet it leaves out: "
        + "\n".join(f"{'; '.join(found)}: {line}" for line, found in problems.items()),
    )


@then('the telemetry log names every spool that could not keep the alert for "{model}"')
def step_lost_alert_spools(context, model):
    """The line calling the alert lost names each spool of the profile ([spool] file, fallback)."""
    world = context.world
    names = world.use(SpoolAppends).spool_names()
    missing = {
        line: unnamed_spools(line, names, world.sandbox.hermes_home)
        for line in _lost_lines(context, model)
    }
    world.check(
        any(not found for found in missing.values()),
        "the operator must know every spool that refused the alert, yet the line does not "
        "name: " + "\n".join(f"{', '.join(found)}: {line}" for line, found in missing.items()),
    )


@then("the telemetry log says {count:d} alert is waiting for the store")
def step_alerts_waiting(context, count):
    """The last store error says how many alerts wait for the store ("(1 pending)")."""
    world = context.world
    lines = world.use(AlertRecords).log_lines(STORE_ERROR)
    world.check(
        lines and says_waiting(lines[-1], count, world.sandbox.hermes_home),
        f"expected the last store error to say {count} alert(s) pending or waiting; "
        "store errors:\n" + ("\n".join(lines) or "  (none)"),
    )


@then('the telemetry log notes the {status:d} failure of "{model}" without reporting it')
def step_non_alert_noted(context, status, model):
    """telemetry.log names the model and the status on a line that is no capture and no error."""
    world = context.world
    lines = world.use(AlertRecords).log_lines("")
    world.check(
        notes_of(lines, model, status, world.sandbox.hermes_home),
        f"expected a line noting the {status} failure of {model!r}, neither a capture nor an "
        "error; the log:\n" + ("\n".join(lines) or "  (empty)"),
    )
