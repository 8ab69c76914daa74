/**
 * A server-sent event source driven by a test (stub it with `vi.stubGlobal("EventSource", StreamStandIn)` and
 * reset `StreamStandIn.opened` before each test): `send` delivers a message, `drop` closes it as the browser does.
 */
import { act } from "react";

export class StreamStandIn {
  static readonly CLOSED = 2;
  static opened: StreamStandIn[] = [];
  readyState = 1;
  onmessage: ((msg: { data: string }) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    StreamStandIn.opened.push(this);
  }
  close() {
    this.readyState = StreamStandIn.CLOSED;
  }
  send(ev: object) {
    act(() => this.onmessage?.({ data: JSON.stringify(ev) }));
  }
  drop() {
    this.readyState = StreamStandIn.CLOSED;
    act(() => this.onerror?.());
  }
}
