#!/usr/bin/env node
// Baseline peer for bench/smcp-server.mjs: a bare Socket.IO server that acks every event at once with a
// CallToolResult echo — one Socket.IO hop, no routing. Prints its port on stdout.
import { createServer } from 'node:http';
import { Server } from 'socket.io';

const http = createServer();
const io = new Server(http, { serveClient: false, maxHttpBufferSize: 16 * 1024 * 1024 });
io.of('/smcp').on('connection', (socket) => {
  socket.on('client:tool_call', (req, ack) => ack({ content: [{ type: 'text', text: req.params.message }], isError: false }));
});
http.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: http.address().port })}\n`));
process.on('SIGTERM', () => io.close(() => process.exit(0)));
