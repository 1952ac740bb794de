"use strict";
// The inspector panel: draws the server's inspector reports (every control's state bits; for the
// selected control its bits, bound values with their rules, lint and a state table; transitions
// as they happen) and asks for another control or property, or for none, with `inspect` messages.
const Inspector = (() => {
  const byId = id => document.getElementById(id);
  let send = () => {};
  let last = null;                 // the last report drawn
  const transitionsShown = 5;

  /// An element with a class and text, and optional data attributes.
  function make(tag, className, text, data = {}) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = text;
    for (const [key, value] of Object.entries(data)) element.dataset[key] = value;
    return element;
  }

  /// A bound value: a colour as a swatch and its name, a string quoted, others as they print.
  function value(v) {
    const span = make("span", "value mono");
    if (v !== null && typeof v === "object") {
      const swatch = make("span", "swatch");
      swatch.style.background = v.rgb ?? "transparent";
      span.append(swatch, v.name);
    } else {
      span.textContent = typeof v === "string" ? JSON.stringify(v) : String(v);
    }
    return span;
  }

  /// The last component of a custom state's reverse-DNS name (`filled`), a built-in one as is.
  const short = name => name.split(".").pop();

  function bit(name, on, changed, range, small) {
    const chip = make("span", small ? "bit small" : "bit", small ? short(name) : name,
                      { name, on, changed, range: range ?? "" });
    chip.title = name;
    return chip;
  }

  function renderControls(report) {
    const list = byId("inspector-controls");
    list.replaceChildren(...report.controls.map(control => {
      const row = make("li", "", undefined, { control: control.id, selected: control.id === report.selected });
      row.append(make("span", "id", control.id));
      const changed = new Set(control.changed);
      for (const name of control.on) {
        const range = name.startsWith("org.statefulcontrols.") ? "library" : name.includes(".") ? "application" : "built-in";
        row.append(bit(name, name !== "normal", changed.has(name), range, true));
      }
      row.addEventListener("click", () => send({ type: "inspect", on: true, control: control.id }));
      return row;
    }));
  }

  function renderBits(report) {
    byId("inspector-selected").textContent = report.selected;
    byId("inspector-bits").replaceChildren(...report.bits.map(b => {
      const chip = bit(b.name, b.on, b.changed, b.range, false);
      chip.title = `${b.name} (${b.bit}, ${b.range})`;
      return chip;
    }));
  }

  function renderTransitions(report) {
    const list = byId("inspector-transitions");
    for (const item of list.children) item.dataset.fresh = "false";
    for (const t of report.transitions) {
      const state = t.state.split(" | ").map(short).join(" | ");
      const item = make("li", "mono", `${t.control}: ${t.change} (depth ${t.depth}) → [${state}]`, { fresh: "true" });
      item.title = t.state;
      list.prepend(item);
    }
    while (list.children.length > transitionsShown) list.lastElementChild.remove();
    if (report.omittedTransitions > 0) list.prepend(make("li", "note", `${report.omittedTransitions} more transitions`));
  }

  const marks = { winner: "✔", loses: "✗", unmatched: "·" };
  const statuses = { winner: "wins", loses: "loses", unmatched: "no match" };

  function renderProperty(property, tabled) {
    const box = make("div", "property", undefined, { property: property.name, tabled });
    const head = make("div", "property-head");
    const name = make("button", "property-name", property.name, { property: property.name });
    name.title = "show its state table";
    name.addEventListener("click", () => send({ type: "inspect", on: true, property: property.name }));
    head.append(name, " = ", value(property.value));
    const rules = make("table", "rules");
    for (const rule of property.rules) {
      const row = make("tr", "rule", undefined, { status: rule.status });
      row.append(make("td", "mark", marks[rule.status]), make("td", "descriptor", rule.descriptor),
                 make("td"), make("td", "status", statuses[rule.status]));
      row.children[2].append(value(rule.value));
      rules.append(row);
    }
    if (property.omittedRules > 0) rules.append(make("tr", "note", `${property.omittedRules} more rules`));
    const fallback = make("tr", "rule default", undefined, { status: property.defaultApplies ? "winner" : "unmatched" });
    fallback.append(make("td", "mark", property.defaultApplies ? "✔" : "·"), make("td", "descriptor", "default"), make("td"),
                    make("td", "status", property.defaultApplies ? "applies" : ""));
    fallback.children[2].append(value(property.defaultValue));
    rules.append(fallback);
    box.append(head, rules, make("p", "reason", property.reason));
    return box;
  }

  function renderProperties(report) {
    const tabled = report.table?.property;
    const boxes = report.properties.map(p => renderProperty(p, p.name === tabled));
    if (boxes.length === 0) boxes.push(make("p", "note", `nothing is bound through ${report.selected}`));
    if (report.omittedProperties > 0) boxes.push(make("p", "note", `${report.omittedProperties} more properties`));
    byId("inspector-properties").replaceChildren(...boxes);
  }

  function renderLint(report) {
    const items = (report.lint ?? []).map(d => {
      const item = make("li", "diagnostic", undefined, { problem: d.problem, property: d.property });
      item.title = d.text;
      if (d.problem !== "shadowed") {
        item.append(make("span", "problem", d.problem), " ", make("code", "", d.property), ": ", d.text);
        return item;
      }
      // A shadowed rule: what beats it, and in how many states (named in the tooltip).
      item.append(make("span", "problem", "shadowed"), " ", make("code", "", d.property), ": ",
                  make("code", "", `${d.descriptor} → ${d.value}`), " never wins; where it matches:");
      const winners = make("ul");
      for (const s of d.beatenBy) {
        const count = s.states.length + s.moreStates;
        const line = make("li", "mono", `${s.descriptor} → ${s.value} wins (${count} state${count === 1 ? "" : "s"})`);
        line.title = s.states.map(state => `[${state}]`).join(", ") + (s.moreStates ? ` and ${s.moreStates} more` : "");
        winners.append(line);
      }
      item.append(winners);
      return item;
    });
    if (report.lint === undefined) items.push(make("li", "note", report.lintNote ?? "no lint"));
    else if (items.length === 0) items.push(make("li", "clean", "no problems: every rule takes effect in some reachable state"));
    if (report.omittedDiagnostics > 0) items.push(make("li", "note", `${report.omittedDiagnostics} more diagnostics`));
    byId("inspector-lint").replaceChildren(...items);
  }

  /// A combination of bits, by the binary digits of `number`: their initials (columns) or short names (rows).
  function label(bits, number, initials) {
    const names = bits.filter((_, index) => number & (1 << index));
    if (names.length === 0) return "–";
    return initials ? names.map(name => name[0].toUpperCase()).join("") : names.map(short).join("+");
  }

  function renderTable(report) {
    const table = report.table;
    byId("inspector-table-property").textContent = table?.property ?? "";
    const box = byId("inspector-table");
    if (!table) { box.replaceChildren(make("p", "note", report.tableNote ?? "no state table")); return; }
    const grid = make("table", "state-table");
    const header = make("tr");
    header.append(make("th"));
    table.cells[0].forEach((_, column) => {
      const th = make("th", "", label(table.columnBits, column, true));
      th.title = label(table.columnBits, column, false);
      header.append(th);
    });
    grid.append(header);
    table.cells.forEach((cells, row) => {
      const tr = make("tr");
      tr.append(make("th", "row-label", label(table.rowBits, row, false)));
      cells.forEach((winner, column) => {
        const v = table.winners[winner].value;
        const applied = row === table.applied[0] && column === table.applied[1];
        const cell = make("td", "", undefined, { row, column, winner, applied });
        if (v !== null && typeof v === "object") cell.style.background = v.rgb ?? "transparent";
        else cell.textContent = typeof v === "boolean" ? (v ? "✓" : "✗") : String(v).slice(0, 3);
        cell.title = `[${[label(table.columnBits, column, false), label(table.rowBits, row, false)].filter(s => s !== "–").join(" + ") || "normal"}]`
          + ` → ${table.winners[winner].descriptor ?? "default"}`;
        tr.append(cell);
      });
      grid.append(tr);
    });
    const legend = make("ul", "legend");
    for (const w of table.winners) {
      const item = make("li");
      item.append(value(w.value), ` ${w.descriptor ?? "default"}`);
      legend.append(item);
    }
    box.replaceChildren(grid, legend);
  }

  return {
    /// Starts the panel: `sender` sends a message to the server; turns the inspector on if the toggle is.
    start(sender) {
      send = sender;
      const toggle = byId("inspect-toggle");
      const apply = () => {
        byId("inspector-body").hidden = !toggle.checked;
        byId("inspector").dataset.on = toggle.checked;
        send({ type: "inspect", on: toggle.checked });
      };
      toggle.onchange = () => { toggle.blur(); apply(); };   // the keys go on to the controls
      apply();
    },
    /// Draws a report.
    render(report) {
      last = report;
      renderControls(report);
      renderBits(report);
      renderTransitions(report);
      renderProperties(report);
      renderLint(report);
      renderTable(report);
      byId("inspector-note").textContent = report.note ?? "";
    },
    get report() { return last; },
  };
})();
