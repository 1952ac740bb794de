"""The inspector panel's checks for web_test.py: choosing what it shows, and waiting for it to show
a control's state bits and a property's winning and losing rules (the DOM and computed styles)."""
import json

BLUE_CHIP, LIBRARY_CHIP, APP_CHIP = "rgb(10, 132, 255)", "rgb(94, 92, 230)", "rgb(255, 159, 10)"
WINNER_BACKGROUND, CHANGED_OUTLINE = "rgba(48, 209, 88, 0.2)", "rgb(255, 214, 10)"
RED, GREEN = "rgb(255, 69, 58)", "rgb(48, 209, 88)"
VALID, FILLED, INVALID = "org.statefulcontrols.valid", "org.statefulcontrols.filled", "org.statefulcontrols.invalid"
SUBMITTED = "com.example.pincode-web.submitted"


def reports(driver):
    """The number of inspector reports the page received."""
    return driver.script("return window.messages.filter(m => m.type === 'inspector').length;")


# web_test.py's counting check, set by it: check(condition, what).
check = None


def q(css):
    """JavaScript: the element `css` selects."""
    return f"document.querySelector({json.dumps(css)})"


def style(css, property_name):
    return f"getComputedStyle({q(css)}).{property_name}"


def select(driver, control):
    """Clicks a control in the panel's list and waits for its details."""
    driver.click(f"#inspector-controls li[data-control='{control}']")
    driver.wait(f"document.getElementById('inspector-selected').textContent === '{control}' && "
                f"{q(f'#inspector-controls li[data-control={control!r}]')}.dataset.selected === 'true'",
                f"the inspector shows {control}")


def show_table(driver, prop):
    """Clicks a property's name and waits for its state table."""
    driver.click(f".property-name[data-property='{prop}']")
    driver.wait(f"document.getElementById('inspector-table-property').textContent === '{prop}' && "
                "document.querySelector('#inspector-table td[data-applied=\"true\"]') !== null",
                f"the state table of {prop} is shown")


def bits_on():
    """JavaScript: the names of the selected control's bits that are on, in order."""
    return "[...document.querySelectorAll('#inspector-bits .bit[data-on=\"true\"]')].map(b => b.dataset.name).join(',')"


def rules_with(prop, status):
    """JavaScript: the descriptors of `prop`'s rules with `status`, joined by `;`."""
    return (f"[...document.querySelectorAll(\".property[data-property='{prop}'] tr.rule:not(.default)[data-status='{status}']\")]"
            ".map(row => row.querySelector('.descriptor').textContent).join(';')")


def expect_step(driver, seen, what, bits, winner, losers=(), changed=(), control_bits=None):
    """Waits for a report after `seen` reports, for the bits on of the controls in `control_bits`
    ({id: [names]}, as the list shows them) and of the selected control (`bits`), then checks
    which of those are marked `changed`, the winner of its first property's rules and those
    that match but lose, with the chips' and rows' computed styles. Returns the reports seen."""
    driver.wait(f"window.messages.filter(m => m.type === 'inspector').length > {seen}", f"{what}: a report arrives")
    # The step's last report is drawn once the selected control's bits and the listed ones are as expected.
    for control, names in (control_bits or {}).items():
        driver.wait(f"[...document.querySelectorAll(\"#inspector-controls li[data-control='{control}'] .bit\")]"
                    f".map(b => b.dataset.name).join(',') === {','.join(names)!r}", f"{what}: {control} shows bits {names}")
    driver.wait(f"{bits_on()} === {','.join(bits)!r}", f"{what}: the state bits on are {bits}")
    prop = driver.script("return document.querySelector('.property').dataset.property;")
    for name in bits:
        chip = f"#inspector-bits .bit[data-name='{name}']"
        expected = APP_CHIP if name == SUBMITTED else LIBRARY_CHIP if name.startswith("org.") else BLUE_CHIP
        background = driver.script(f"return {style(chip, 'backgroundColor')};")
        check(background == expected, f"{what}: the {name} chip is drawn {background}, not {expected}")
        is_changed = driver.script(f"return {q(chip)}.dataset.changed;") == "true"
        check(is_changed == (name in changed), f"{what}: the {name} chip is {'' if is_changed else 'not '}marked changed")
        if is_changed:
            outline = driver.script(f"return {style(chip, 'outlineColor')} + ' ' + {style(chip, 'outlineStyle')};")
            check(outline == f"{CHANGED_OUTLINE} solid", f"{what}: a changed chip's outline is {outline}")
    driver.wait(f"{rules_with(prop, 'winner')} === {winner!r}", f"{what}: {prop}'s winner is {winner or 'the default'}")
    driver.wait(f"{rules_with(prop, 'loses')} === {';'.join(losers)!r}", f"{what}: the rules that match but lose: {list(losers)}")
    if winner:
        row = f".property[data-property='{prop}'] tr.rule[data-status='winner']"
        drawn = driver.script(f"return {style(row, 'backgroundColor')} + ' ' + {style(row, 'fontWeight')};")
        check(drawn == f"{WINNER_BACKGROUND} 700", f"{what}: the winner's row is drawn {drawn}")
    else:
        driver.wait(f"{q(f'.property[data-property={prop!r}] tr.default')}.dataset.status === 'winner'", f"{what}: the default applies")
    if losers:
        lines = driver.script(f"return [...document.querySelectorAll(\".property[data-property='{prop}'] tr.rule[data-status='loses']\")]"
                              ".map(row => getComputedStyle(row).textDecorationLine);")
        check(set(lines) == {"line-through"}, f"{what}: the losing rules are drawn {lines}, not struck through")
    return reports(driver)
