"""The two runs the charts are drawn from: make bench's JSON and make bench-ir's TSV."""

import datetime
import json
import math
import os


class Run:
    """One bench JSON (resolver-bench --json): its results, and where and when it was measured."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
        if not isinstance(document, dict):
            document = {}
        results = document.get("results")
        self.results = [r for r in results if isinstance(r, dict)] if isinstance(results, list) else []
        self.machine = document.get("machine") if isinstance(document.get("machine"), dict) else {}
        self.mode = document.get("mode")
        self.date, self.date_source = run_date(document.get("date"), path)

    def rows(self, scenario):
        """The results of one scenario, in the run's order."""
        return [r for r in self.results if r.get("scenario") == scenario]

    def find(self, scenario, implementation, params=None):
        """The first row of the scenario with that implementation whose params include `params`."""
        for row in self.rows(scenario):
            if row.get("implementation") == implementation and all(params_of(row).get(k) == v for k, v in (params or {}).items()):
                return row
        return None

    def provenance(self):
        """Two lines naming the run: its date (and where that came from), then the machine."""
        date = f"make bench: run of {self.date} ({self.date_source})"
        if self.mode and self.mode != "full":
            date += f", {self.mode} mode (a smoke run: figures less stable)"
        return [date, machine_text(self.machine)]


class InstructionRun:
    """One make bench-ir run, as scripts/bench-ir.sh writes it into bench-ir.tsv: the loops'
    instructions per iteration and the goals stated in instructions."""

    def __init__(self, path):
        self.counts, self.allocations, self.goals, self.floors = {}, {}, [], []
        date = None
        with open(path, encoding="utf-8") as file:
            for fields in (line.rstrip("\n").split("\t") for line in file):
                kind = fields[0]
                if kind == "run" and len(fields) >= 2:
                    date = fields[1]
                elif kind == "count" and len(fields) >= 3 and to_float(fields[2]) is not None:
                    self.counts[fields[1]] = to_float(fields[2])
                    if len(fields) >= 5 and to_float(fields[4]) is not None:
                        self.allocations[fields[1]] = to_float(fields[4])
                elif kind == "goal" and len(fields) >= 5 and to_float(fields[4]) is not None:
                    self.goals.append(Goal(fields[1], fields[2], fields[3], to_float(fields[4])))
                elif kind == "floor" and len(fields) >= 4:
                    self.floors.append(Floor(fields[1], fields[2], fields[3]))
        self.date, self.date_source = run_date(date, path)

    def ratio(self, loop, reference):
        """loop's count ÷ reference's, or None when either was not counted."""
        value, base = self.counts.get(loop), self.counts.get(reference)
        return value / base if value is not None and base else None

    def provenance(self):
        """The line naming the run."""
        return f"make bench-ir: run of {self.date} ({self.date_source}); instruction counts (valgrind callgrind)"


class Goal:
    """A goal of make bench-ir: loop's instructions ÷ reference's at most `limit`."""

    def __init__(self, name, loop, reference, limit):
        self.name, self.loop, self.reference, self.limit = name, loop, reference, limit


class Floor:
    """The plain-Swift floor of a portable goal: `loop` does the goal's work in plain Swift with no
    library (`what` says how it holds its targets); no plain-Swift access can go below it."""

    def __init__(self, goal, loop, what):
        self.goal, self.loop, self.what = goal, loop, what


def run_date(date, path):
    """The run's date and where it came from: the file's own, else the file's mtime (UTC)."""
    if isinstance(date, str) and date.strip():
        return date.strip(), "its date field"
    mtime = datetime.datetime.fromtimestamp(os.path.getmtime(path), tz=datetime.timezone.utc)
    return mtime.strftime("%Y-%m-%d %H:%M UTC"), "the file's modification time: the file has no date"


def machine_text(machine):
    """The machine line: cpu, cores, os, build, as the JSON says."""
    cores = machine.get("cores")
    parts = [
        machine.get("cpu") or "cpu not recorded",
        f"{cores} cores" if cores is not None else "cores not recorded",
        machine.get("os") or "os not recorded",
        f"{machine['build']} build" if machine.get("build") else "build not recorded",
    ]
    return ", ".join(str(part) for part in parts)


def params_of(row):
    """The row's params, or none when it has no params object."""
    params = row.get("params")
    return params if isinstance(params, dict) else {}


def number(value):
    """The value as a float when it is a finite number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def to_float(text):
    """A TSV field as a finite float, or None."""
    try:
        return number(float(text))
    except ValueError:
        return None
