#!/usr/bin/env python3
"""The page in a real browser: headless Chromium driven through chromedriver's W3C WebDriver
HTTP API (urllib only). Starts the server and chromedriver, plays a session with real pointer
and key input, asserts the DOM after each step — the controls, and the inspector panel's state
bits and winning rules (inspector_checks.py) — and saves a screenshot with the panel open.

usage: web_test.py SERVER_BINARY SCREENSHOT_PNG
"""
import base64
import json
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import inspector_checks as inspector
from inspector_checks import FILLED, INVALID, SUBMITTED, VALID

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C key of an element reference
BACKSPACE = "\ue003"
GREY, GREEN, DARK_GREY, BLUE, PURPLE = (
    "rgb(142, 142, 147)", "rgb(48, 209, 88)", "rgb(72, 72, 74)", "rgb(10, 132, 255)", "rgb(175, 82, 222)")

passed = 0


def check(condition, what):
    """Counts a passed check or stops the test with `what`."""
    global passed
    if not condition:
        raise AssertionError(what)
    passed += 1


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WebDriver:
    """A W3C WebDriver session on chromedriver."""

    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                if self.call("GET", "/status")["ready"]:
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("chromedriver did not become ready in 20 s")
            time.sleep(0.1)
        options = {"binary": "/usr/bin/chromium",
                   "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1440,1000"]}
        # The console's messages are kept: a Content-Security-Policy violation is reported there.
        capabilities = {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options,
                                        "goog:loggingPrefs": {"browser": "ALL"}}}
        self.session = self.call("POST", "/session", {"capabilities": capabilities})["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.load(response)["value"]
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"WebDriver {method} {path}: {error.read().decode()}") from None

    def do(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def script(self, source, *args):
        return self.do("POST", "/execute/sync", {"script": source, "args": list(args)})

    def element(self, css):
        return self.do("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def pointer(self, *steps):
        """Performs pointer steps: ("down",), ("up",), ("move", css, dx, dy) to an offset from an
        element's centre, or ("by", dx, dy) from where the pointer is."""
        actions = []
        for step in steps:
            if step[0] == "down":
                actions.append({"type": "pointerDown", "button": 0})
            elif step[0] == "up":
                actions.append({"type": "pointerUp", "button": 0})
            elif step[0] == "move":
                actions.append({"type": "pointerMove", "duration": 0, "origin": {ELEMENT: self.element(step[1])},
                                "x": step[2], "y": step[3]})
            else:
                actions.append({"type": "pointerMove", "duration": 30, "origin": "pointer", "x": step[1], "y": step[2]})
        self.do("POST", "/actions", {"actions": [
            {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]})

    def click(self, css):
        """Clicks an element as WebDriver does (scrolled into view first)."""
        self.do("POST", f"/element/{self.element(css)}/click", {})

    def tap(self, css):
        self.pointer(("move", css, 0, 0), ("down",), ("up",))

    def keys(self, text):
        actions = []
        for key in text:
            actions += [{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]
        self.do("POST", "/actions", {"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})

    def wait(self, expression, what, timeout=5):
        """Waits until the JavaScript `expression` is true in the page, then counts the check."""
        deadline = time.monotonic() + timeout
        while not self.script(f"return Boolean({expression});"):
            if time.monotonic() > deadline:
                state = self.script("return document.body.innerText + '\\nlast: ' + JSON.stringify(window.messages.slice(-2));")
                raise AssertionError(f"{what}: `{expression}` stayed false for {timeout} s; page:\n{state}")
            time.sleep(0.05)
        check(True, what)

    def console(self):
        """The browser console's messages since the last call (chromedriver's log endpoint)."""
        return [entry["message"] for entry in self.do("POST", "/se/log", {"type": "browser"})]

    def quit(self):
        self.do("DELETE", "")


def color(css):
    return f"getComputedStyle(document.querySelector('{css}')).color"


def events_count():
    return "document.querySelectorAll('#events li').length"


def play(driver, url):
    driver.do("POST", "/url", {"url": url})
    driver.wait("document.getElementById('connection').textContent === 'connected' && window.messages.length > 0",
                "the page connects and gets the snapshot")
    driver.wait(f"{color('#submit')} === '{GREY}' && document.getElementById('submit').dataset.enabled === 'false'",
                "Submit starts disabled and grey")

    # The inspector is on (the page turns it on): every control listed, the PIN selected.
    driver.wait("window.messages.some(m => m.type === 'inspector') && !document.getElementById('inspector-body').hidden",
                "the inspector panel is open and has a report")
    driver.wait("document.querySelectorAll('#inspector-controls li').length === 8 && "
                "document.getElementById('inspector-selected').textContent === 'pin'", "the panel lists the 8 controls, the PIN selected")
    inspector.select(driver, "pin.dots.0")
    seen = inspector.expect_step(driver, 0, "dot 0 at first", ["normal"], "")

    # A valid code, digit by digit: the dot's bits and its fill's winner after each.
    driver.tap("#pin")
    driver.wait("document.querySelector('#pin .dot').dataset.border === 'blue'", "a tap focuses the PIN (blue borders)")
    seen = inspector.expect_step(driver, seen, "the PIN tapped", ["highlighted"], "",
                                 control_bits={"pin": ["focused"], "submit": ["disabled"]})
    check(driver.script(f"return {inspector.q('#inspector-controls li[data-control=pin] .bit[data-name=focused]')}.dataset.changed;")
          == "true", "the PIN's focused bit is marked changed in the list")
    blue, white = "containing(highlighted | selected) @997", "containing(selected) @996"
    for index, digit in enumerate("135"):
        driver.keys(digit)
        seen = inspector.expect_step(driver, seen, f"digit {index + 1}", ["highlighted", "selected"], blue, [white],
                                     changed=["selected"] if index == 0 else [], control_bits={"pin": ["focused"]})
        driver.wait("document.querySelector('#inspector-transitions li[data-fresh=\"true\"]')?.textContent === "
                    "'pin: committed (depth 1) → [focused]'", f"digit {index + 1}: the PIN's transition is shown")
    driver.keys("7")
    seen = inspector.expect_step(driver, seen, "digit 4 (valid)", ["highlighted", "selected", VALID],
                                 f"containing(selected | {VALID}) @999", [blue, white], changed=[VALID],
                                 control_bits={"pin": ["focused", FILLED, VALID]})
    driver.wait(f"document.getElementById('submit').dataset.enabled === 'true' && {color('#submit')} === '{GREEN}'",
                "a valid code enables Submit and turns it green")
    driver.wait("[...document.querySelectorAll('#pin .dot')].every(dot => dot.dataset.fill === 'green')",
                "the dots of a valid code are green")

    # An invalid code: Submit disabled again, the dots red.
    driver.keys(BACKSPACE * 4 + "1111")
    driver.wait(f"document.getElementById('submit').dataset.enabled === 'false' && {color('#submit')} === '{GREY}'",
                "an invalid code disables Submit and greys it")
    driver.wait("[...document.querySelectorAll('#pin .dot')].every(dot => dot.dataset.fill === 'red')",
                "the dots of an invalid code are red")
    inspector.expect_step(driver, seen, "an invalid code", ["highlighted", "selected", INVALID],
                          f"containing(selected | {INVALID}) @998", [blue, white], changed=[INVALID],
                          control_bits={"pin": ["focused", FILLED, INVALID]})
    # The fill's state table: a row per combination of valid and invalid, a column per built-in one.
    inspector.show_table(driver, "pin.dots.0.fillColor")
    check(driver.script("return document.querySelectorAll('#inspector-table tr').length;") == 5, "the table has a header and 4 rows")
    check(driver.script("return document.querySelectorAll('#inspector-table td').length;") == 64, "the table has 64 states")
    check(driver.script(f"return {inspector.style('#inspector-table td[data-applied=true]', 'backgroundColor')};") == inspector.RED,
          "the applied state's cell is red")
    # A press on a disabled Submit does nothing.
    seen = driver.script(f"return {events_count()};")
    driver.tap("#submit")
    driver.tap("#visit")  # a marker: its events arrive after any the Submit press caused
    driver.wait("document.querySelector('#events li').textContent === 'visit primaryActionTriggered'",
                "the marker tap arrives")
    texts = driver.script("return [...document.querySelectorAll('#events li')].map(li => li.textContent);")
    new = texts[:len(texts) - seen]
    check(not any(text.startswith("submit") for text in new), f"a disabled Submit sends no event: {new}")
    driver.wait(f"{color('#visit')} === '{PURPLE}'", "the tapped visitable button turns purple (visited)")

    # Press Submit: the server-side action fires and says so in the DOM.
    driver.keys(BACKSPACE + "7")
    driver.wait("document.getElementById('submit').dataset.enabled === 'true'", "1117 is valid")
    driver.tap("#submit")
    driver.wait("document.getElementById('status').textContent === 'Submitted code 1 (4 digits)'",
                "pressing Submit fires its server-side action")

    # Press and drag out past the slop before releasing: highlight follows, no action.
    driver.pointer(("move", "#submit", 0, 0), ("down",))
    driver.wait(f"document.getElementById('submit').dataset.highlighted === 'true' && {color('#submit')} === '{DARK_GREY}'",
                "a press highlights Submit (dark grey)")
    driver.pointer(("by", 0, 60))  # 36 px below the 48-px button: inside the 70-px slop
    driver.wait("document.querySelector('#events li').textContent === 'submit touchDragInside'", "a drag within the slop stays inside")
    check(driver.script("return document.getElementById('submit').dataset.highlighted;") == "true",
          "Submit stays highlighted within the slop")
    driver.pointer(("by", 0, 120))  # far below
    driver.wait(f"document.getElementById('submit').dataset.highlighted === 'false' && {color('#submit')} === '{GREEN}'",
                "dragging out past the slop removes the highlight")
    driver.pointer(("up",))
    driver.wait("document.querySelector('#events li').textContent === 'submit touchUpOutside'",
                "a release outside sends touchUpOutside")
    check(driver.script("return document.getElementById('status').textContent;") == "Submitted code 1 (4 digits)",
          "a release outside fires no action")

    # Out and back in: the release inside fires the action.
    driver.pointer(("move", "#submit", 0, 0), ("down",), ("by", 200, 0), ("by", -190, 0), ("up",))
    driver.wait("document.getElementById('status').textContent === 'Submitted code 2 (4 digits)'",
                "dragging out and back in, then releasing, fires the action")

    # Submitted: Submit's app state is on; the rule meant for it matches but loses, and the lint says so.
    inspector.select(driver, "submit")
    inspector.expect_step(driver, 0, "Submit after two submissions", [SUBMITTED], "containingNone(disabled) @500",
                          [f"containing({SUBMITTED}) @400"])
    shadowed = "#inspector-lint li[data-problem='shadowed'][data-property='submit.titleColor']"
    driver.wait(f"{inspector.q(shadowed)}?.textContent.includes('containing({SUBMITTED}) @400 → blue never wins')",
                "the lint shows the shadowed rule")
    check(driver.script(f"return [...{inspector.q(shadowed)}.querySelectorAll('li')].map(li => li.textContent);") == [
        "containing(highlighted) @999 → darkGrey wins (8 states)", "containing(disabled) @999 → grey wins (4 states)",
        "containingNone(disabled) @500 → green wins (4 states)"], "the lint names what beats the rule, and where")
    inspector.show_table(driver, "submit.titleColor")
    check(driver.script(f"return {inspector.style('#inspector-table td[data-applied=true]', 'backgroundColor')};") == inspector.GREEN,
          "Submit's applied state is green in its table")

    # Off: the panel is hidden and the notes' steps bring no report.
    driver.click("#inspect-toggle")
    driver.wait("document.getElementById('inspector-body').hidden && "
                "getComputedStyle(document.getElementById('inspector-body')).display === 'none'", "the inspector turns off")
    before_off = inspector.reports(driver)

    # The notes: the placeholder goes with the first character, comes back with the last.
    driver.wait("!document.querySelector('#notes .placeholder').hidden", "the notes show their placeholder")
    driver.tap("#notes")
    driver.wait("document.getElementById('notes').dataset.focused === 'true'", "a tap focuses the notes")
    driver.keys("ok")
    driver.wait("document.querySelector('#notes .placeholder').hidden && document.querySelector('#notes .text').textContent === 'ok'",
                "typing hides the placeholder")
    driver.wait("document.querySelector('#pin .dot').style.borderWidth === '1px'", "the PIN lost the focus (thin borders)")
    check(inspector.reports(driver) == before_off, "no report arrives while the inspector is off")

    # On again: the panel shows Submit (still selected) for the screenshot.
    driver.click("#inspect-toggle")
    driver.wait(f"window.messages.filter(m => m.type === 'inspector').length > {before_off} && "
                "!document.getElementById('inspector-body').hidden && "
                "document.getElementById('inspector-selected').textContent === 'submit'", "the inspector turns on again")

    # Every update carried only changed properties: replay them.
    messages = driver.script("return window.messages;")
    check(messages[0]["type"] == "snapshot" and all(m["type"] in ("update", "inspector") for m in messages[1:]),
          "one snapshot, then updates and inspector reports")
    messages = [messages[0]] + [m for m in messages[1:] if m["type"] == "update"]
    model = dict(messages[0]["properties"])
    for message in messages[1:]:
        same = [key for key, value in message["changes"].items() if model.get(key) == value]
        check(not same, f"an update re-sent unchanged properties {same}")
        model.update(message["changes"])
    check(max(len(m["changes"]) for m in messages[1:]) < len(model) / 2, "no update re-sends the page")

    # The server's Content-Security-Policy allows everything the page does: no violation reported.
    violations = [message for message in driver.console() if "Content Security Policy" in message]
    check(not violations, f"the page breaks its Content-Security-Policy: {violations[:3]}")


def main():
    server_binary, screenshot = sys.argv[1], sys.argv[2]
    started = time.monotonic()
    server = subprocess.Popen([server_binary, "--port", "0"], stdout=subprocess.PIPE, text=True)
    driver_process = None
    try:
        line = server.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        check(match is not None, f"the server prints its URL on 127.0.0.1: {line!r}")
        driver_port = free_port()
        driver_process = subprocess.Popen(["chromedriver", f"--port={driver_port}"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        driver = WebDriver(driver_port)
        inspector.check = check
        try:
            play(driver, match.group(0))
            png = base64.b64decode(driver.do("GET", "/screenshot"))
            with open(screenshot, "wb") as file:
                file.write(png)
            check(png.startswith(b"\x89PNG"), "the screenshot is a PNG")
        finally:
            driver.quit()
        check(server.poll() is None, "the server is still running")
    finally:
        for process in (driver_process, server):
            if process:
                process.terminate()
                process.wait(timeout=10)
    print(f"browser test: {time.monotonic() - started:.1f} s, screenshot {screenshot}")
    print(f"{passed} passed, 0 failed")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        print(f"{passed} passed, 1 failed")
        sys.exit(1)
