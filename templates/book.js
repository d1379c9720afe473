/* book.js: the small script of the published book. No dependencies, no network: it
   runs from file:// as well as from a web server.
   - the sidebar toggle (the sidebar slides in on small screens)
   - keys: ← and → for the previous and next page, / or s to search, Esc to close
   - search over window.BOOK_SEARCH (search-index.js, loaded on first use); the tokenizer
     mirrors orchestrator/publish/search.py: keep the two in step
   - copy buttons on code blocks, and the current section marked in the sidebar
   Results are built with DOM methods and textContent only: the index holds chapter text. */
(function () {
  "use strict";

  var root = document.documentElement;
  root.classList.add("js"); // loaded in <head>: the CSS can hide the sidebar before first paint

  // The reader's theme, remembered across pages and visits; set before first paint.
  var THEME_KEY = "book-theme";
  function storedTheme() {
    try { return window.localStorage.getItem(THEME_KEY); } catch (err) { return null; } // file:// in some browsers
  }
  var chosen = storedTheme();
  if (chosen === "light" || chosen === "dark") root.setAttribute("data-theme", chosen);

  var NARROW = "(max-width: 60rem)";
  var CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u{20000}-\u{2fa1f}";
  var CJK_RE = new RegExp("^[" + CJK + "]$", "u");
  var TOKEN_RE = new RegExp("([" + CJK + "]+)|((?:(?![" + CJK + "])[\\p{L}\\p{N}_])+)", "gu");

  function isNarrow() { return window.matchMedia(NARROW).matches; }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }

  function isTyping(t) {
    return !!t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  }

  function format(tpl, values) {
    return String(tpl || "").replace(/\{(\w+)\}/g, function (m, k) {
      return Object.prototype.hasOwnProperty.call(values, k) ? String(values[k]) : m;
    });
  }

  // ------------------------------------------------------------------ sidebar

  function setupSidebar() {
    var btn = document.getElementById("SidebarToggle");
    var bar = document.getElementById("Sidebar");
    if (!btn || !bar) return;

    function visible() {
      return isNarrow() ? root.classList.contains("sidebar-open") : !root.classList.contains("sidebar-hidden");
    }
    function sync() { btn.setAttribute("aria-expanded", String(visible())); }
    function close() { root.classList.remove("sidebar-open"); sync(); }

    btn.addEventListener("click", function () {
      root.classList.toggle(isNarrow() ? "sidebar-open" : "sidebar-hidden");
      sync();
      if (isNarrow() && visible()) {
        var target = bar.querySelector('[aria-current="page"]') || bar.querySelector("a");
        if (target) target.focus();
      }
    });
    bar.addEventListener("click", function (e) {
      if (isNarrow() && e.target.closest && e.target.closest("a")) close();
    });
    // A tap beside the open sidebar (on the shaded page) closes it.
    document.addEventListener("click", function (e) {
      if (root.classList.contains("sidebar-open") && !bar.contains(e.target) && !btn.contains(e.target)) close();
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && root.classList.contains("sidebar-open")) { close(); btn.focus(); }
    });
    var mq = window.matchMedia(NARROW);
    if (mq.addEventListener) mq.addEventListener("change", sync);
    sync();

    // Keep the current chapter in view in a long table of contents.
    var current = bar.querySelector('[aria-current="page"]');
    if (current && current.offsetTop > bar.clientHeight * 0.6) {
      bar.scrollTop = current.offsetTop - bar.clientHeight / 3;
    }
  }

  // Mark the section being read in the sidebar's list of this chapter's sections.
  function setupScrollSpy() {
    // the sidebar's sections of this chapter and its "On this page" list mark the section in view
    var links = document.querySelectorAll(".toc-sections a, .page-toc a");
    if (!links.length || !("IntersectionObserver" in window)) return;
    var byId = {};
    Array.prototype.forEach.call(links, function (a) {
      var id = decodeURIComponent(a.hash.slice(1));
      (byId[id] = byId[id] || []).push(a);
    });
    var active = [];
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        var as = byId[entry.target.id];
        if (!as || as === active) return;
        active.forEach(function (a) { a.classList.remove("is-active"); });
        active = as;
        as.forEach(function (a) { a.classList.add("is-active"); });
      });
    }, { rootMargin: "0px 0px -70% 0px" });
    Object.keys(byId).forEach(function (id) {
      var h = document.getElementById(id);
      if (h) observer.observe(h);
    });
  }

  // ------------------------------------------------------------------ keys

  function setupKeys() {
    document.addEventListener("keydown", function (e) {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      if ((e.key === "ArrowLeft" || e.key === "ArrowRight") && !e.shiftKey) {
        var a = document.querySelector(e.key === "ArrowLeft" ? 'a[rel="prev"]' : 'a[rel="next"]');
        if (a) { e.preventDefault(); window.location.href = a.href; }
        return;
      }
      if (e.key === "/" || e.key === "s" || e.key === "S") {
        var input = document.getElementById("Search");
        if (input) { e.preventDefault(); input.focus(); input.select(); }
      }
    });
  }

  // ------------------------------------------------------------------ search

  function tokenize(text) {
    var out = [];
    var m;
    TOKEN_RE.lastIndex = 0;
    text = String(text).normalize("NFKC");
    while ((m = TOKEN_RE.exec(text)) !== null) {
      if (m[1]) {
        var chars = Array.from(m[1]);
        if (chars.length === 1) out.push(chars[0]);
        for (var i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
      } else {
        var w = m[2].toLowerCase();
        if (Array.from(w).length >= 2) out.push(w);
      }
    }
    return out.filter(function (t, i) { return out.indexOf(t) === i; });
  }

  var prepared = null;
  function prepare(data) {
    // Postings come as [token, [doc, weight, doc, weight, ...]] pairs: a Map, not an object
    // whose keys could clash with Object.prototype.
    if (!prepared) prepared = { data: data, terms: new Map(data.terms), keys: data.terms.map(function (p) { return p[0]; }) };
    return prepared;
  }

  function search(data, query) {
    var idx = prepare(data);
    var tokens = tokenize(query);
    var docs = new Map();
    function add(postings, factor, ti) {
      for (var i = 0; i < postings.length; i += 2) {
        var hit = docs.get(postings[i]);
        if (!hit) { hit = { score: 0, tokens: new Set() }; docs.set(postings[i], hit); }
        hit.score += postings[i + 1] * factor;
        hit.tokens.add(ti);
      }
    }
    tokens.forEach(function (t, ti) {
      if (idx.terms.has(t)) add(idx.terms.get(t), 1, ti);
      // Partial words: a Latin prefix (the word being typed), or a lone CJK character
      // inside the bigrams that contain it.
      var chars = Array.from(t);
      var cjk = CJK_RE.test(chars[0]);
      if (cjk ? chars.length !== 1 : chars.length < 2) return;
      var n = 0;
      for (var k = 0; k < idx.keys.length && n < 200; k++) {
        var key = idx.keys[k];
        if (key !== t && (cjk ? key.indexOf(t) >= 0 : key.lastIndexOf(t, 0) === 0)) {
          add(idx.terms.get(key), 0.5, ti);
          n++;
        }
      }
    });
    var pages = new Map();
    docs.forEach(function (hit, d) {
      var doc = data.docs[d];
      var page = pages.get(doc.p);
      if (!page) { page = { page: doc.p, score: 0, tokens: new Set(), docs: [] }; pages.set(doc.p, page); }
      page.score += hit.score;
      hit.tokens.forEach(function (t) { page.tokens.add(t); });
      page.docs.push({ doc: d, score: hit.score });
    });
    var all = Array.from(pages.values());
    // Pages with every word first; if none has them all, the best partial matches.
    var complete = all.filter(function (p) { return p.tokens.size === tokens.length; });
    var list = complete.length ? complete : all;
    list.sort(function (a, b) { return b.tokens.size - a.tokens.size || b.score - a.score || a.page - b.page; });
    list.forEach(function (p) { p.docs.sort(function (a, b) { return b.score - a.score || a.doc - b.doc; }); });
    return { tokens: tokens, pages: list.slice(0, 25) };
  }

  // A short excerpt around the first match, every query token in it marked.
  function snippet(text, tokens) {
    if (!text) return null;
    var low = text.toLowerCase();
    var first = -1;
    tokens.forEach(function (t) {
      var i = low.indexOf(t);
      if (i >= 0 && (first < 0 || i < first)) first = i;
    });
    var start = first < 0 ? 0 : Math.max(0, first - 60);
    var end = Math.min(text.length, start + 180);
    var ranges = [];
    tokens.forEach(function (t) {
      for (var i = low.indexOf(t, start); i >= 0 && i < end; i = low.indexOf(t, i + t.length)) {
        ranges.push([i, Math.min(end, i + t.length)]);
      }
    });
    ranges.sort(function (a, b) { return a[0] - b[0]; });
    var p = el("p", "search-snippet");
    var pos = start;
    p.appendChild(document.createTextNode(start > 0 ? "…" : ""));
    ranges.forEach(function (r) {
      if (r[0] < pos) return; // overlaps the previous mark
      p.appendChild(document.createTextNode(text.slice(pos, r[0])));
      p.appendChild(el("mark", "", text.slice(r[0], r[1])));
      pos = r[1];
    });
    p.appendChild(document.createTextNode(text.slice(pos, end) + (end < text.length ? "…" : "")));
    return p;
  }

  function setupSearch() {
    var form = document.getElementById("SearchForm");
    var input = document.getElementById("Search");
    var panel = document.getElementById("SearchResults");
    var status = document.getElementById("SearchStatus");
    var list = document.getElementById("SearchList");
    if (!form || !input || !panel || !status || !list) return;

    var loading = false;
    var waiting = null;
    var timer = 0;

    function load(then) {
      if (window.BOOK_SEARCH) { then(); return; }
      waiting = then;
      if (loading) return;
      loading = true;
      var s = document.createElement("script");
      s.src = form.getAttribute("data-index");
      s.onload = function () { var f = waiting; waiting = null; if (f) f(); };
      s.onerror = function () { loading = false; };
      document.head.appendChild(s);
    }

    function show() { panel.hidden = false; }
    function hide() { panel.hidden = true; }

    function links() { return Array.prototype.slice.call(list.querySelectorAll("a")); }

    function render(query, result) {
      var data = window.BOOK_SEARCH;
      list.textContent = "";
      var n = result.pages.length;
      var one = form.getAttribute("data-results-one");
      status.textContent = n
        ? format(n === 1 && one ? one : form.getAttribute("data-results"), { n: n, q: query })
        : format(form.getAttribute("data-no-results"), { q: query });
      result.pages.forEach(function (hit) {
        var page = data.pages[hit.page];
        var li = el("li", "search-hit");
        var title = el("a", "search-hit-title", page.t);
        title.href = page.u;
        li.appendChild(title);
        var sections = el("ul", "search-sections");
        hit.docs.slice(0, 3).forEach(function (d) {
          var doc = data.docs[d.doc];
          var snip = snippet(doc.x, result.tokens);
          if (!doc.a) { // the top of the chapter: its excerpt goes under the chapter title
            if (snip) li.insertBefore(snip, title.nextSibling);
            return;
          }
          var item = el("li");
          var a = el("a", "", doc.t);
          a.href = page.u + "#" + doc.a;
          item.appendChild(a);
          if (snip) item.appendChild(snip);
          sections.appendChild(item);
        });
        if (sections.firstChild) li.appendChild(sections);
        list.appendChild(li);
      });
      show();
    }

    var openFirst = false; // Enter pressed before the index had loaded: open the first result once it has

    function run() {
      var query = input.value.trim();
      if (!query) { hide(); return; }
      if (!window.BOOK_SEARCH) {
        status.textContent = form.getAttribute("data-loading");
        list.textContent = "";
        show();
        load(run);
        return;
      }
      render(query, search(window.BOOK_SEARCH, query));
      if (openFirst) {
        openFirst = false;
        var first = links()[0];
        if (first) window.location.href = first.href;
      }
    }

    input.addEventListener("focus", function () { load(function () {}); });
    input.addEventListener("input", function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(run, 80);
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { input.value = ""; hide(); input.blur(); }
      else if (e.key === "ArrowDown") {
        var first = links()[0];
        if (first) { e.preventDefault(); first.focus(); }
      }
    });
    form.addEventListener("submit", function (e) {
      e.preventDefault(); // Enter opens the best result
      window.clearTimeout(timer);
      openFirst = true;
      run();
    });
    panel.addEventListener("keydown", function (e) {
      var all = links();
      var i = all.indexOf(document.activeElement);
      if (e.key === "ArrowDown" && i >= 0 && i + 1 < all.length) { e.preventDefault(); all[i + 1].focus(); }
      else if (e.key === "ArrowUp" && i >= 0) { e.preventDefault(); (i > 0 ? all[i - 1] : input).focus(); }
      else if (e.key === "Escape") { hide(); input.focus(); }
    });
    document.addEventListener("click", function (e) {
      if (!panel.hidden && !panel.contains(e.target) && !form.contains(e.target)) hide();
    });

    // ?search=words opens the page with a search already made.
    var m = /[?&]search=([^&#]*)/.exec(window.location.search);
    if (m) {
      try { input.value = decodeURIComponent(m[1].replace(/\+/g, " ")); } catch (err) { input.value = ""; }
      run();
    }
  }

  // ------------------------------------------------------------------ code blocks

  function copyFallback(text) {
    var t = el("textarea", "visually-hidden");
    t.value = text;
    t.setAttribute("readonly", "");
    document.body.appendChild(t);
    t.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
    document.body.removeChild(t);
    return ok;
  }

  function setupCopy() {
    var labels = document.body.dataset;
    Array.prototype.forEach.call(document.querySelectorAll("main pre"), function (pre) {
      var wrap = el("div", "pre-wrap");
      pre.parentNode.insertBefore(wrap, pre);
      wrap.appendChild(pre);
      var button = el("button", "copy-button", labels.copy || "Copy");
      button.type = "button";
      button.setAttribute("aria-label", labels.copyLabel || "Copy");
      button.addEventListener("click", function () {
        var text = pre.textContent;
        function done() {
          button.textContent = labels.copied || "Copied";
          window.setTimeout(function () { button.textContent = labels.copy || "Copy"; }, 1500);
        }
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () { if (copyFallback(text)) done(); });
        } else if (copyFallback(text)) {
          done();
        }
      });
      wrap.appendChild(button);
    });
  }

  function setupPrint() {
    if (!document.body.classList.contains("page-print")) return;
    var a = document.querySelector('.topbar a[href="print.html"]');
    if (a) a.addEventListener("click", function (e) { e.preventDefault(); window.print(); });
  }

  // ------------------------------------------------------------------ theme

  function setupTheme() {
    var btn = document.getElementById("ThemeToggle");
    if (!btn) return;
    function current() {
      var t = root.getAttribute("data-theme");
      if (t) return t;
      return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
    }
    function sync() { btn.setAttribute("aria-pressed", String(current() === "dark")); }
    btn.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try { window.localStorage.setItem(THEME_KEY, next); } catch (err) { /* not remembered */ }
      sync();
    });
    sync();
  }

  function start() {
    setupTheme();
    setupSidebar();
    setupScrollSpy();
    setupKeys();
    setupSearch();
    setupCopy();
    setupPrint();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
