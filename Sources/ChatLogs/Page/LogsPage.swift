public import ChatHTTP
import ChatLogStore

/// The page at `/`: a viewer of the archive written against the API itself (`/channels`, `/list`,
/// a day's or a user's month `?json`), served from the binary — no CDN, no build step.
///
/// Pick a channel and a day, or a user (their month), filter by text, page back to older days; the
/// state lives in the URL's fragment (`#channel=c&day=2025-11-20&user=u&q=text`), so a link shows the
/// same view. Moderation shows as the API gives it: a CLEARMSG's line says what was deleted and the
/// message it names is struck through as deleted; a timeout or ban marks the user's earlier lines.
/// Text is only ever set as text (`textContent`), never as markup.
public enum LogsPage: Sendable {
    /// The page's answer: `text/html`, not cached, scripts and styles of its own only.
    public static var response: HTTPResponse {
        HTTPResponse(
            status: 200, contentType: "text/html; charset=utf-8", body: html,
            headers: [
                HTTPHeader("Cache-Control", "no-cache"),
                HTTPHeader(
                    "Content-Security-Policy",
                    "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; base-uri 'none'"),
            ])
    }

    static let html: [UInt8] = Array(
        #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>chatcap logs</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #fafafa; color: #222; }
        header { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #ddd; padding: 8px; }
        header select, header input, header button { font: inherit; margin-right: 6px; }
        #status { color: #666; margin: 8px; }
        #lines { list-style: none; margin: 0; padding: 0 8px 16px; font-family: ui-monospace, monospace; }
        #lines li { padding: 1px 0; white-space: pre-wrap; word-break: break-word; }
        .time { color: #888; margin-right: 8px; }
        .user { font-weight: 600; margin-right: 6px; text-decoration: none; color: #1565c0; }
        .moderation { color: #b71c1c; font-style: italic; }
        .notice { color: #6a1b9a; }
        .deleted .text { text-decoration: line-through; color: #999; }
        .deleted::after { content: " (deleted)"; color: #b71c1c; font-size: 12px; }
        .timedout .text { color: #999; }
        .timedout::after { content: " (timed out or banned later)"; color: #b71c1c; font-size: 12px; }
        </style>
        </head>
        <body>
        <header>
        <select id="channel" aria-label="channel"></select>
        <select id="day" aria-label="day or month"></select>
        <input id="user" placeholder="user" aria-label="user" size="16">
        <input id="filter" placeholder="filter text" aria-label="filter" size="24">
        <button type="button" id="older">older</button>
        </header>
        <p id="status">loading…</p>
        <ol id="lines"></ol>
        <script>
        "use strict";
        const $ = (id) => document.getElementById(id);
        const pad = (n) => String(n).padStart(2, "0");
        const enc = encodeURIComponent;
        let periods = [];
        let shown = [];

        function state() {
          const p = new URLSearchParams(location.hash.slice(1));
          return { channel: p.get("channel") || "", day: p.get("day") || "", user: p.get("user") || "", q: p.get("q") || "" };
        }
        function fragment(s) {
          const p = new URLSearchParams();
          for (const k of ["channel", "day", "user", "q"]) if (s[k]) p.set(k, s[k]);
          return p.toString();
        }
        function go(s) { location.hash = fragment(s); }
        async function json(url) {
          const r = await fetch(url);
          if (!r.ok) throw new Error(url + ": " + r.status + " " + (await r.text()));
          return r.json();
        }
        function options(select, values, chosen) {
          select.replaceChildren(...values.map((v) => new Option(v, v, false, v === chosen)));
        }

        async function render() {
          const s = state();
          $("user").value = s.user;
          $("filter").value = s.q;
          try {
            const names = (await json("/channels")).channels.map((c) => c.name);
            if (!names.includes(s.channel)) s.channel = names[0] || "";
            options($("channel"), names, s.channel);
            if (!s.channel) { $("status").textContent = "no channels"; return; }
            const list = await json("/list?channel=" + enc(s.channel) + (s.user ? "&user=" + enc(s.user) : ""));
            periods = list.availableLogs.map((d) => d.day ? d.year + "-" + pad(d.month) + "-" + pad(d.day) : d.year + "-" + pad(d.month));
            if (!periods.includes(s.day)) s.day = periods[0];
            options($("day"), periods, s.day);
            // The view chosen by default is written into the URL too: it is shareable, and the
            // filter (which reads the URL) filters this view.
            history.replaceState(null, "", "#" + fragment(s));
            const [y, m, d] = s.day.split("-").map(Number);
            const url = s.user
              ? "/channel/" + enc(s.channel) + "/user/" + enc(s.user) + "/" + y + "/" + m + "?json"
              : "/channel/" + enc(s.channel) + "/" + y + "/" + m + "/" + d + "?json";
            shown = (await json(url)).messages;
            show(s);
          } catch (e) {
            shown = [];
            $("lines").replaceChildren();
            $("status").textContent = String(e.message || e);
          }
        }

        function show(s) {
          const deleted = new Set();
          const lastCleared = new Map();
          shown.forEach((m, i) => {
            if (m.type === 13 && m.tags["target-msg-id"]) deleted.add(m.tags["target-msg-id"]);
            if (m.type === 2 && m.username) lastCleared.set(m.username, i);
          });
          const q = s.q.toLowerCase();
          const items = [];
          shown.forEach((m, i) => {
            if (q && !(m.text.toLowerCase().includes(q) || (m.username || "").includes(q))) return;
            const li = document.createElement("li");
            if (m.type === 2 || m.type === 13) li.className = "moderation";
            if (m.type === 4) li.className = "notice";
            if (m.id && deleted.has(m.id)) li.classList.add("deleted");
            if (m.type === 1 && lastCleared.has(m.username) && lastCleared.get(m.username) > i) li.classList.add("timedout");
            const time = document.createElement("span");
            time.className = "time";
            time.textContent = m.timestamp.replace("T", " ").replace(/\.\d+Z$|Z$/, "");
            li.append(time);
            if (m.username) {
              const a = document.createElement("a");
              a.className = "user";
              a.href = "#channel=" + enc(s.channel) + "&user=" + enc(m.username);
              a.textContent = (m.displayName || m.username) + ":";
              li.append(a);
            }
            const text = document.createElement("span");
            text.className = "text";
            text.textContent = m.text;
            li.append(text);
            if (m.id) li.dataset.id = m.id;
            items.push(li);
          });
          $("lines").replaceChildren(...items);
          $("status").textContent = "#" + s.channel + (s.user ? " · " + s.user : "") + " · " + s.day + " · " + items.length + " of " + shown.length + " lines";
        }

        $("channel").addEventListener("change", (e) => go({ channel: e.target.value }));
        $("day").addEventListener("change", (e) => go({ ...state(), day: e.target.value }));
        $("user").addEventListener("change", (e) => go({ ...state(), user: e.target.value.trim().toLowerCase(), day: "" }));
        $("filter").addEventListener("input", (e) => { history.replaceState(null, "", "#" + new URLSearchParams({ ...state(), q: e.target.value }).toString()); show(state()); });
        $("older").addEventListener("click", () => {
          const s = state();
          const i = periods.indexOf(s.day || periods[0]);
          if (i >= 0 && i + 1 < periods.length) go({ ...s, day: periods[i + 1] });
        });
        window.addEventListener("hashchange", render);
        render();
        </script>
        </body>
        </html>

        """#.utf8)
}
