/**
 * Server-sent events decoder (the subset chat-completion streams use): lines
 * end in LF or CRLF, `data:` lines of one event are joined with LF, a blank
 * line ends the event; other fields and comments are ignored.
 */
export class SseDecoder {
  private pending = '';
  private data: string[] = [];

  /** Feeds decoded text; returns the data of every event it completed. */
  push(text: string): string[] {
    const events: string[] = [];
    const buffer = this.pending + text;
    let start = 0;
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n', start)) {
      const end = newline > start && buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      this.line(buffer.slice(start, end), events);
      start = newline + 1;
    }
    this.pending = buffer.slice(start);
    return events;
  }

  /** The stream ended: a last event without its blank line still counts. */
  end(): string[] {
    const events: string[] = [];
    if (this.pending.length > 0) this.line(this.pending, events);
    this.pending = '';
    this.line('', events);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line.length === 0) {
      if (this.data.length > 0) events.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith('data:')) this.data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
  }
}
