import { type QuoteType, Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

export type Attributes = Record<string, string>;

/** What a TagReader reports to: the tags it was told of, and text when asked for. */
export interface TagHandler {
  /** Whether the attributes of this open tag are wanted: they are read only then. */
  wantsAttributes(name: string): boolean;
  /**
   * An open tag of the reader's list, with its attributes (lower-case names, the first of
   * a repeated name, entities decoded) or an empty object when not wanted. `foreign`: it
   * is inside <svg> or <math>, where a <title> names a graphic.
   */
  onopentag(name: string, attribs: Attributes, foreign: boolean): void;
  onclosetag(name: string): void;
  /** Whether text is wanted now: text is sliced out of the page only then. */
  readonly readingText: boolean;
  ontext(text: string): void;
}

const NO_ATTRIBUTES: Attributes = Object.freeze({}) as Attributes;

/** The elements that open foreign content, read here whether on the list or not. */
const FOREIGN_ROOTS: readonly string[] = ['svg', 'math'];

function opensForeignContent(name: string | null): boolean {
  return name !== null && FOREIGN_ROOTS.includes(name);
}

/**
 * The tags of a page that a crawler looks at, from htmlparser2's tokenizer, without its
 * Parser. The Parser names every tag (a slice and a lower-casing each, open and close),
 * keeps the element stack, copies out every attribute of every tag and every text
 * node: on pages as the web has them, some thousand tags with a class or two each, that
 * was a third of the parse, for the few dozen tags wanted. Here a tag is named only when
 * its length and first letter could be one of the list, attributes are read only for
 * the tags the handler wants them of, and text only while it asks for text.
 *
 * What it keeps of the Parser's tree rules, the ones that change what the list's tags
 * mean: <svg> and <math> open foreign content (the tokenizer reads <title> and <script>
 * there as ordinary tags, and a title there is a graphic's), and a <form> inside an open
 * form is ignored, as is a </form> with none open. An element the page leaves unclosed
 * stays open to the end: the Parser would close an <svg> or a <form> with its parent.
 */
export class TagReader implements TokenizerCallbacks {
  private text = '';
  /** Of each name of the list: its length and first letter (lower-case), for a check without a slice. */
  private readonly shapes = new Set<number>();
  /** The open tag being read: its name if on the list or foreign, else null. */
  private tag: string | null = null;
  private attribs: Attributes | null = null;
  private attrName = '';
  private attrValue = '';
  private foreignDepth = 0;
  private formOpen = false;

  constructor(
    private readonly handler: TagHandler,
    private readonly names: ReadonlySet<string>,
  ) {
    for (const name of [...names, ...FOREIGN_ROOTS])
      this.shapes.add(shapeOf(name.length, name.charCodeAt(0)));
  }

  /** Reads a whole document (one call: the tokenizer's offsets index this string). */
  read(text: string): void {
    this.text = text;
    const tokenizer = new Tokenizer({ decodeEntities: true }, this);
    tokenizer.write(text);
    tokenizer.end();
  }

  isInForeignContext(): boolean {
    return this.foreignDepth > 0;
  }

  onopentagname(start: number, endIndex: number): void {
    const name = this.nameAt(start, endIndex);
    this.tag = name;
    this.attribs = null;
    if (name === null) return;
    if (name === 'form') {
      // The HTML tree builder ignores a form inside a form.
      if (this.formOpen) {
        this.tag = null;
        return;
      }
      this.formOpen = true;
    }
    if (this.names.has(name) && this.handler.wantsAttributes(name)) this.attribs = {};
  }

  onattribname(start: number, endIndex: number): void {
    if (this.attribs !== null) this.attrName = this.text.slice(start, endIndex).toLowerCase();
  }

  onattribdata(start: number, endIndex: number): void {
    if (this.attribs !== null) this.attrValue += this.text.slice(start, endIndex);
  }

  onattribentity(codepoint: number): void {
    if (this.attribs !== null) this.attrValue += String.fromCodePoint(codepoint);
  }

  onattribend(_quote: QuoteType, _endIndex: number): void {
    const attribs = this.attribs;
    if (attribs === null) return;
    if (!Object.hasOwn(attribs, this.attrName)) attribs[this.attrName] = this.attrValue;
    this.attrValue = '';
  }

  onopentagend(_endIndex: number): void {
    this.openTag(false);
  }

  /** `<x/>`: in HTML the slash means nothing; in foreign content the element closes at once. */
  onselfclosingtag(_endIndex: number): void {
    const name = this.tag;
    const closes = this.foreignDepth > 0 || opensForeignContent(name);
    this.openTag(closes);
    if (closes && name !== null) this.closeTag(name);
  }

  onclosetag(start: number, endIndex: number): void {
    const name = this.nameAt(start, endIndex);
    if (name !== null) this.closeTag(name);
  }

  ontext(start: number, endIndex: number): void {
    if (this.handler.readingText) this.handler.ontext(this.text.slice(start, endIndex));
  }

  ontextentity(codepoint: number, _endIndex: number): void {
    if (this.handler.readingText) this.handler.ontext(String.fromCodePoint(codepoint));
  }

  oncdata(): void {}
  oncomment(): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}
  onend(): void {}

  /** The open tag is complete: reported, and foreign content entered unless it closed itself. */
  private openTag(selfClosed: boolean): void {
    const name = this.tag;
    if (name === null) return;
    const foreign = this.foreignDepth > 0;
    if (opensForeignContent(name) && !selfClosed) this.foreignDepth++;
    if (this.names.has(name)) this.handler.onopentag(name, this.attribs ?? NO_ATTRIBUTES, foreign);
    this.tag = null;
    this.attribs = null;
  }

  private closeTag(name: string): void {
    if (opensForeignContent(name)) {
      if (this.foreignDepth > 0) this.foreignDepth--;
    } else if (name === 'form') {
      if (!this.formOpen) return;
      this.formOpen = false;
    }
    if (this.names.has(name)) this.handler.onclosetag(name);
  }

  /** The tag's name, lower-case, if it is on the list or opens foreign content; else null. */
  private nameAt(start: number, endIndex: number): string | null {
    const length = endIndex - start;
    if (!this.shapes.has(shapeOf(length, this.text.charCodeAt(start)))) return null;
    const name = this.text.slice(start, endIndex).toLowerCase();
    return this.names.has(name) || opensForeignContent(name) ? name : null;
  }
}

/** A name's length and first letter, lower-cased, as one number. */
function shapeOf(length: number, firstChar: number): number {
  return length * 256 + ((firstChar | 0x20) & 0xff);
}
