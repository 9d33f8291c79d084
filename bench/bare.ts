/**
 * The limit of bench/run.ts and bench/load.ts: a bare `node:http` JSON-RPC responder that parses the body and
 * answers a constant CallToolResult, nothing else. Run as a script (`node bench/bare.ts`) it listens on
 * 127.0.0.1:`PORT` (0: any free port) and prints `listening on port N`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** The responder (not yet listening). */
export function bareResponder(): http.Server {
  const result = {
    resultType: "complete",
    content: [{ type: "text", text: '{"status":"succeeded"}' }],
    structuredContent: { status: "succeeded" },
  };
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number };
      const body = JSON.stringify({ jsonrpc: "2.0", id: msg.id, result });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
}

if (import.meta.main) {
  const server = bareResponder();
  server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
    console.log(`listening on port ${(server.address() as AddressInfo).port}`);
  });
  // Exit through process.exit on SIGTERM (bench/load.ts stops its targets so), which lets `--cpu-prof` write.
  process.on("SIGTERM", () => process.exit(0));
}
