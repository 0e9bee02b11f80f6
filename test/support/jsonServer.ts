/**
 * An HTTP server for the scripted model APIs (scriptedAnthropic.ts, scriptedResponses.ts): each request's
 * body is read whole and parsed as JSON (null when empty or not JSON) before the handler sees it.
 */
import * as http from 'node:http';

/** `body` is `any`: each API's handler checks the shape it expects. */
export type JsonHandler = (req: http.IncomingMessage, res: http.ServerResponse, raw: string, body: any) => void;

export function jsonServer(handler: JsonHandler): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      handler(req, res, raw, body);
    });
  });
}
