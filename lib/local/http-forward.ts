/**
 * Forwards one HTTP request to an upstream server over a keep-alive agent, and its response back: the
 * loopback proxies of the local mode (the ScyllaDB stand-in nodes, the DynamoDB capacity emulator) in
 * front of DynamoDB Local. An upstream error answers 502 with `label` and the error.
 */
import * as http from 'node:http';

export function forwardHttp(
  upstream: URL,
  agent: http.Agent,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  label: string,
): http.ClientRequest {
  const up = http.request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host },
      agent,
    },
    (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    },
  );
  up.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`${label}: ${err.message}`);
  });
  return up;
}
