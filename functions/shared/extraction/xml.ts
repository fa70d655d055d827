import { Parser } from "htmlparser2";
import { DocumentExtractionError } from "./limits.ts";

/**
 * A minimal element tree for the XML parts of Office, OpenDocument and EPUB files. htmlparser2
 * never fetches or expands entities beyond the five XML ones and numeric references, so external
 * entities cannot reach the network or the disk; a document type that declares entities is still
 * refused outright (no Office or EPUB writer emits one, and "billion laughs" payloads need one).
 */

export interface XmlElement {
  /** Qualified name as written, lowercased by nothing: `w:p`, `a:t`, `text:h`. */
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
}

export type XmlNode = XmlElement | string;

/** Deeper nesting than this is hostile: real documents stay in the tens. */
const MAX_XML_DEPTH = 1024;
const ENTITY_DECLARATION = /<!ENTITY/i;
const DOCTYPE_WITH_SUBSET = /<!DOCTYPE[^>[]*\[/i;

export function refuseEntityDeclarations(xml: string, label: string): void {
  if (ENTITY_DECLARATION.test(xml) || DOCTYPE_WITH_SUBSET.test(xml)) {
    throw new DocumentExtractionError(`the ${label} file declares XML entities (a document type definition), which are refused for safety`);
  }
}

export function parseXml(xml: string, label: string): XmlElement {
  refuseEntityDeclarations(xml, label);
  const root: XmlElement = { name: "#document", attributes: {}, children: [] };
  const stack: XmlElement[] = [root];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (stack.length > MAX_XML_DEPTH) {
          throw new DocumentExtractionError(`the ${label} file nests XML elements more than ${MAX_XML_DEPTH} levels deep`);
        }
        const element: XmlElement = { name, attributes, children: [] };
        stack[stack.length - 1]!.children.push(element);
        stack.push(element);
      },
      onclosetag() {
        if (stack.length > 1) stack.pop();
      },
      ontext(text) {
        const children = stack[stack.length - 1]!.children;
        const last = children.length - 1;
        if (last >= 0 && typeof children[last] === "string") children[last] += text;
        else children.push(text);
      },
    },
    { xmlMode: true, decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.write(xml);
  parser.end();
  return root;
}

export function isElement(node: XmlNode | undefined): node is XmlElement {
  return typeof node === "object";
}

/** Local name without its prefix: `w:p` → `p`. */
export function localName(element: XmlElement): string {
  const colon = element.name.indexOf(":");
  return colon === -1 ? element.name : element.name.slice(colon + 1);
}

export function childElements(element: XmlElement, name?: string): XmlElement[] {
  return element.children.filter((child): child is XmlElement => isElement(child) && (name === undefined || child.name === name));
}

export function firstChild(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((child): child is XmlElement => isElement(child) && child.name === name);
}

/** Every descendant with this name, in document order, without recursion (hostile depth is bounded, but stacks are cheaper than frames). */
export function descendants(element: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const pending: XmlElement[] = [element];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (let index = current.children.length - 1; index >= 0; index--) {
      const child = current.children[index];
      if (!isElement(child)) continue;
      pending.push(child);
    }
    if (current !== element && current.name === name) found.push(current);
  }
  return found;
}

export function firstDescendant(element: XmlElement, name: string): XmlElement | undefined {
  return descendants(element, name)[0];
}

/** All text below an element, concatenated. */
export function textContent(element: XmlElement): string {
  const parts: string[] = [];
  const pending: XmlNode[] = [element];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (typeof current === "string") parts.push(current);
    else for (let index = current.children.length - 1; index >= 0; index--) pending.push(current.children[index]!);
  }
  return parts.join("");
}
