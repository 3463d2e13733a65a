/**
 * One stand-in ScyllaDB node for the local mode, run as its own process (`node -r tsx/cjs
 * scylla-node.ts <dynamodb-local-endpoint> <cluster-name> <index>`): an HTTP server on a free
 * loopback port that answers Alternator's health check (`GET /` → 200 "healthy: <address>", as
 * ScyllaDB does) and forwards every other request to one shared DynamoDB Local, so N nodes share
 * their data as the nodes of a cluster do. `GET /_stand-in/requests` tells how many requests it forwarded. Prints `listening <port>` once it serves; exits when its
 * parent closes stdin (it never outlives the run).
 */
import * as http from 'node:http';
import { forwardHttp } from './http-forward';

function main(): void {
  const [upstream, cluster = 'local', index = '0'] = process.argv.slice(2);
  if (!upstream) {
    process.stderr.write('usage: scylla-node <dynamodb-local-endpoint> [cluster] [index]\n');
    process.exit(2);
  }
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let forwarded = 0;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/_stand-in/requests') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ forwarded }));
      return;
    }
    if (req.method === 'GET' && (req.url === '/' || req.url === '')) {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`healthy: 127.0.0.1:${port} (${cluster} node ${index})`);
      return;
    }
    forwarded++;
    req.pipe(forwardHttp(target, agent, req, res, 'upstream'));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
  });
  // the parent holds our stdin: when it goes away (exit, kill -9), so do we
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
  process.on('SIGTERM', () => process.exit(0));
}

main();
