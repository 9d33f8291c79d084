/**
 * A minimal element builder for satori (which takes React-element-shaped objects), so the renderer needs no
 * JSX toolchain: `h("div", { style }, ...children)`.
 */

export interface Node {
  type: string;
  props: Record<string, unknown> & { children?: unknown };
}

type Child = Node | string | null | undefined | false;

/** An element of `type` with `props` and the truthy `children`. */
export function h(type: string, props: Record<string, unknown>, ...children: Child[]): Node {
  const kids = children.filter((c): c is Node | string => Boolean(c));
  return { type, props: { ...props, children: kids.length === 1 ? kids[0] : kids } };
}

/** An absolutely positioned box (pixels). */
export function box(x: number, y: number, w: number, hgt: number): Record<string, unknown> {
  return { position: "absolute", left: x, top: y, width: w, height: hgt, display: "flex" };
}
