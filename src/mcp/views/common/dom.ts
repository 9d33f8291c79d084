/**
 * Small DOM helpers of the views. Text is always set as text (textContent), never parsed as HTML: captions,
 * headlines and reasons come from users and networks.
 */

type Child = Node | string | null | undefined | false;

/**
 * An element `tag` with `attrs` (strings set as attributes; `on<event>` functions as listeners; `class`,
 * `hidden` as usual) and `children` (strings become text nodes; falsy children are skipped).
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | ((e: Event) => void) | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const c of children) if (c) el.append(c);
  return el;
}

/** Replaces the children of `parent` with `children`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren(...children.filter((c): c is Node | string => Boolean(c)));
}

/** "1 credit", "30 credits". */
export const credits = (n: number): string => `${n} credit${n === 1 ? "" : "s"}`;

/** Seconds as m:ss ("0:12", "2:05"). */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** An ISO 8601 time in the user's locale (date and time, short), or the text as it is when not a date. */
export function when(iso: string, locale?: string, timeZone?: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone }).format(t);
}

/** A small state label ("ready", "failed", ...) styled by its value. */
export function badge(state: string, label = state.replaceAll("_", " ")): HTMLElement {
  return h("span", { class: `badge state-${state}` }, label);
}

/**
 * A "local stand-in" label beside what the offline local provider made (its template output, not an AI
 * model's; `provider` from the view data), else nothing. `label` names the part when there are several.
 */
export function standIn(provider: string | null | undefined, label = "local stand-in"): HTMLElement | null {
  if (provider !== "local") return null;
  return h(
    "span",
    {
      class: "badge stand-in",
      title: "Made by the offline local stand-in from templates, not by an AI model",
    },
    label,
  );
}
