// In-page search for an exported Logbook session. It reads the page's own text
// only and loads nothing: the page's Content-Security-Policy allows this script by
// its hash and nothing else.
(function () {
  var q = document.getElementById('q'), count = document.getElementById('count');
  var items = null, texts = null, hits = [], at = -1;
  function index() {
    if (items) return;
    items = Array.prototype.slice.call(document.querySelectorAll('.item'));
    texts = items.map(function (el) { return el.textContent.toLowerCase(); });
  }
  function clear() {
    if (at >= 0 && hits[at]) hits[at].classList.remove('hit');
  }
  function search() {
    index();
    clear();
    var s = q.value.trim().toLowerCase();
    hits = [];
    at = -1;
    if (s) for (var i = 0; i < items.length; i++) if (texts[i].indexOf(s) >= 0) hits.push(items[i]);
    count.textContent = s ? hits.length + ' found' : '';
  }
  function go(step) {
    if (!hits.length) return;
    clear();
    at = (at + step + hits.length) % hits.length;
    var el = hits[at], s = q.value.trim().toLowerCase();
    el.querySelectorAll('details').forEach(function (d) {
      if (d.textContent.toLowerCase().indexOf(s) >= 0) d.open = true;
    });
    for (var p = el.parentElement; p; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
    el.classList.add('hit');
    el.scrollIntoView({ block: 'center' });
    count.textContent = (at + 1) + ' / ' + hits.length;
  }
  var timer = 0;
  q.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(search, 150); });
  q.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') { e.preventDefault(); if (timer) { clearTimeout(timer); timer = 0; search(); } go(e.shiftKey ? -1 : 1); }
  });
  document.getElementById('next').addEventListener('click', function () { go(1); });
  document.getElementById('prev').addEventListener('click', function () { go(-1); });
  document.addEventListener('keydown', function (e) {
    if ((e.ctrlKey || e.metaKey) && e.key === 'f' && document.activeElement !== q) { e.preventDefault(); q.focus(); q.select(); }
  });
})();
