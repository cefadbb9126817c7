// The inspector's page: the four queue counts and the project revision from /api/overview,
// read again whenever /api/live reports a new revision. Text only (textContent), no HTML from
// the answers.
(() => {
  const GUARD = { "X-AWR-Inspector": "1" };
  const COUNTS = {
    current: "current_total",
    ready: "ready_count",
    waiting: "waiting_count",
    blocked: "blocked_count",
  };

  function show(id, value) {
    const node = document.getElementById(id);
    if (node) node.textContent = value === undefined || value === null ? "—" : String(value);
  }

  function showError(error) {
    const node = document.getElementById("error");
    if (!node) return;
    node.hidden = error === undefined;
    node.textContent = error === undefined ? "" : `${error.code}: ${error.message}`;
  }

  async function refresh() {
    let answer;
    try {
      const res = await fetch("/api/overview", { headers: GUARD });
      answer = await res.json();
    } catch (err) {
      answer = { ok: false, error: { code: "BridgeUnreachable", message: String(err) } };
    }
    if (!answer.ok) {
      showError(answer.error);
      return;
    }
    showError(undefined);
    const data = answer.data;
    show("project", data.project);
    show("revision", data.project_revision);
    for (const [queue, field] of Object.entries(COUNTS)) show(`count-${queue}`, data[field]);
  }

  let shown;
  function watch() {
    if (typeof EventSource === "undefined") return;
    const live = new EventSource("/api/live");
    live.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.project_revision !== shown) {
        shown = message.project_revision;
        void refresh();
      }
    });
  }

  refresh().then(watch);
})();
