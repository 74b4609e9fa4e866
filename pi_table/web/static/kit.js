// The page kit's script (web/document.py), one for every pi-table server's pages: numbers and dates
// through Intl in the reader's language, one date form a language ("29 nov 2026, 02:04", "Nov 29,
// 2026, 2:04 AM": never ISO, never a two-digit year), and a page kept up to date by fetching it
// again into its parts, said once in a polite live region: never a reload, which throws a screen
// reader back to the top of the page (issue 73). The staff page imports its formatters; a page
// made by a server (the league's) marks its numbers (<data value>) and dates (<time datetime>),
// which this script writes in the page's language and time zone (main's data-zone, said once).

const pageLang = () => document.documentElement.lang;
export const number = (value, options = {}, lang = pageLang()) => new Intl.NumberFormat(lang, options).format(value);
export const DATE = { dateStyle: "medium", timeStyle: "short" };
export const when = (date, options = DATE, lang = pageLang()) => new Intl.DateTimeFormat(lang, options).format(date);

// A code the table has just made for the owner to write down (the recovery code, the backup key),
// shown this once in its part of a page (``id``, hidden until then, the code in ``ID-code``); the
// table never shows it again. The set-up page and the staff page's sections alike.
export function showOnce(id, code) {
  document.getElementById(id).hidden = !code;
  document.getElementById(`${id}-code`).textContent = code || "";
}

// A server's page: each <data value> a number (data-digits: its decimals, fixed), each <time
// datetime> a date in the page's time zone.
const zone = () => document.querySelector("main")?.dataset.zone;
const zoned = (options) => (zone() ? { ...options, timeZone: zone() } : options);
function written(root) {
  root.querySelectorAll("data[value]").forEach((node) => {
    const digits = node.dataset.digits === undefined ? undefined : Number(node.dataset.digits);
    node.textContent = number(Number(node.value), digits === undefined ? { maximumFractionDigits: 2 }
      : { minimumFractionDigits: digits, maximumFractionDigits: digits });
  });
  root.querySelectorAll("time[datetime]").forEach((node) => {
    node.textContent = when(new Date(node.dateTime), zoned(DATE));
  });
}

// main's data-every (seconds): the page fetched again that often, each part (data-part, by its id)
// whose content changed put in place, the focus kept where it was, and the page's live region
// (data-said's words) told once.
const was = new WeakMap();  // each part's content as its server last wrote it
function kept(every) {
  const main = document.querySelector("main");
  const said = document.getElementById("kit-said");
  setInterval(async () => {
    let text;
    try {
      const answer = await fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
      if (!answer.ok) return;
      text = await answer.text();
    } catch {
      return;  // the server away a moment: the next turn tries again
    }
    const fresh = new DOMParser().parseFromString(text, "text/html");
    let changed = false;
    for (const part of main.querySelectorAll("[data-part]")) {
      const now = fresh.getElementById(part.id);
      if (!now || now.innerHTML === was.get(part)) continue;
      const focused = part.contains(document.activeElement) ? document.activeElement.id : "";
      was.set(part, now.innerHTML);
      part.replaceChildren(...now.childNodes);
      written(part);
      if (focused && document.getElementById(focused)) document.getElementById(focused).focus({ preventScroll: true });
      changed = true;
    }
    if (changed && said) said.textContent = said.dataset.said + " " + when(new Date(), zoned({ timeStyle: "short" }));
  }, every * 1000);
}

const main = document.querySelector("main");
if (main && main.dataset.kit !== undefined) {
  main.querySelectorAll("[data-part]").forEach((part) => was.set(part, part.innerHTML));
  written(document);
  if (main.dataset.every) kept(Number(main.dataset.every));
}
