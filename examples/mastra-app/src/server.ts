import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';

import { readConfig } from './config.js';
import type { AppConfig } from './config.js';
import { createMastra } from './mastra.js';

/**
 * POST /threads/:resourceId/:threadId/messages  {"text": "…"}
 *   → 202 {"action": "wake" | "deliver", "runId": "…"}
 * GET  /healthz  → 200 once etcd answers a lease read, 503 otherwise (readiness probe).
 */
export function createApp(config: AppConfig) {
  const app = createMastra(config);
  const agent = app.mastra.getAgent('assistant');

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/healthz') {
      try {
        await app.pubsub.getLeaseProvider().getLeaseOwner('healthz');
        return reply(res, 200, { ok: true });
      } catch (error) {
        return reply(res, 503, { ok: false, error: String(error) });
      }
    }
    const match = /^\/threads\/([^/]+)\/([^/]+)\/messages$/.exec(url.pathname);
    if (req.method === 'POST' && match) {
      const body = JSON.parse((await readBody(req)) || '{}') as { text?: unknown };
      if (typeof body.text !== 'string' || body.text === '') return reply(res, 400, { error: 'body.text must be a non-empty string' });
      const target = { resourceId: decodeURIComponent(match[1]!), threadId: decodeURIComponent(match[2]!) };
      const accepted = await agent.sendMessage(body.text, target).accepted;
      if (accepted.action === 'wake') {
        // This instance owns the thread now; let the run finish in the background.
        accepted.output.consumeStream().catch((error: unknown) => console.error('run failed', error));
      }
      return reply(res, 202, { action: accepted.action, runId: 'runId' in accepted ? accepted.runId : undefined });
    }
    reply(res, 404, { error: 'not found' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => reply(res, 500, { error: String(error) }));
  });

  return {
    server,
    mastra: app.mastra,
    pubsub: app.pubsub,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}

// Run directly: node --import tsx examples/mastra-app/src/server.ts
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const config = readConfig();
  const app = createApp(config);
  app.server.listen(config.port, () => console.log(`listening on :${config.port}`));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // Kubernetes sends SIGTERM: stop taking requests, let Mastra drain, release the etcd client.
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  }
}
