"use strict";
// The page's own script, apart from index.html so that the Content-Security-Policy allows
// scripts from the server only (no inline script).
// The page keeps the properties the server sent (`control.property` → value) and draws from them.
const model = {};
window.messages = [];          // every message received, for tests and the curious
const byId = id => document.getElementById(id);
const socket = new WebSocket(`ws://${location.host}/ws`);

function color(value) { return value.rgb ?? "transparent"; }

function render() {
  for (const id of ["pin", "submit", "visit", "notes"]) {
    byId(id).style.width = model[`${id}.width`] + "px";
    byId(id).style.height = model[`${id}.height`] + "px";
  }
  document.querySelectorAll("#pin .dot").forEach((dot, index) => {
    const fill = model[`pin.dots.${index}.fillColor`], border = model[`pin.dots.${index}.borderColor`];
    dot.style.background = color(fill);
    dot.style.borderColor = color(border);
    dot.style.borderWidth = model[`pin.dots.${index}.borderWidth`] + "px";
    dot.dataset.fill = fill.name;
    dot.dataset.border = border.name;
  });
  byId("digits").textContent = "•".repeat(model["pin.digits"]);
  for (const id of ["submit", "visit"]) {
    const button = byId(id), titleColor = model[`${id}.titleColor`];
    button.textContent = model[`${id}.title`];
    button.style.color = color(titleColor);
    button.dataset.color = titleColor.name;
    button.dataset.highlighted = model[`${id}.isHighlighted`];
  }
  byId("submit").dataset.enabled = model["submit.isEnabled"];
  byId("status").textContent = model["status.text"];
  const notes = byId("notes");
  notes.querySelector(".text").textContent = model["notes.text"];
  notes.querySelector(".placeholder").textContent = model["notes.placeholder"];
  notes.querySelector(".placeholder").hidden = model["notes.placeholderLabel.isHidden"];
  notes.dataset.focused = model["notes.isFocused"];
}

socket.onopen = () => { byId("connection").textContent = "connected"; Inspector.start(send); };
socket.onclose = event => { byId("connection").textContent = `disconnected (${event.code})`; };
socket.onmessage = event => {
  const message = JSON.parse(event.data);
  window.messages.push(message);
  if (message.type === "error") { byId("error").textContent = message.message; return; }
  if (message.type === "inspector") { Inspector.render(message.inspector); return; }
  Object.assign(model, message.properties ?? message.changes);
  for (const name of message.events ?? []) {
    const item = document.createElement("li");
    item.textContent = name;
    byId("events").prepend(item);
  }
  render();
};

function send(message) {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

// Pointer events become touches in the pressed control's coordinates: down on the control,
// then every move and the release wherever they happen, until the release.
let pressed = null;
function sendPointer(phase, event) {
  const rect = pressed.getBoundingClientRect();
  send({ type: "pointer", control: pressed.id, phase, x: event.clientX - rect.left, y: event.clientY - rect.top });
}
for (const element of document.querySelectorAll(".control")) {
  element.addEventListener("pointerdown", event => {
    if (pressed) return;
    event.preventDefault();
    pressed = element;
    sendPointer("down", event);
  });
}
document.addEventListener("pointermove", event => { if (pressed) sendPointer("move", event); });
for (const [type, phase] of [["pointerup", "up"], ["pointercancel", "cancel"]]) {
  document.addEventListener(type, event => {
    if (!pressed) return;
    sendPointer(phase, event);
    pressed = null;
  });
}

// Keys go to the server, which gives them to the focused control.
document.addEventListener("keydown", event => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "Backspace") send({ type: "deleteBackward" });
  else if (event.key.length === 1) send({ type: "insertText", text: event.key });
  else return;
  event.preventDefault();
});
