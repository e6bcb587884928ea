/**
 * The worker's MCP clients: one live connection per (server name, config, working directory),
 * shared by every activity of the worker that needs that server. A server that died (its process
 * exited, its HTTP endpoint went away) is started again on the next use; a call in flight when it
 * died fails with an error the caller turns into an `is_error` tool result. Idle connections are
 * closed after `idleMs`.
 */
// The SDK loads when the first server starts (about 150 ms a worker without MCP servers saves).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { RUNNER_VERSION } from '../../common/version';
import type { McpServerConfig, McpTimeouts } from '../../config-files/mcp-config';
import {
  DEFAULT_MCP_CONNECT_TIMEOUT_MS,
  DEFAULT_MCP_TOOL_TIMEOUT_MS,
  configHash,
  isRemoteServer,
  mcpTimeoutsFromEnv,
  mcpToolTimeoutMs,
} from '../../config-files/mcp-config';
import { expandServerConfig, mcpServerEnv } from './env';

/** Bytes of a server's stderr kept for error messages (the tail). */
const STDERR_TAIL_BYTES = 2048;

/** Options of {@link McpClientPool}. */
export interface McpClientPoolOptions {
  /** The worker's environment: `${VAR}` expansion and the base of stdio servers' env. @default process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * How long a server may take to start and list its tools (ms), unless a run gives its own.
   * @default the worker's `MCP_TIMEOUT`, else 30000
   */
  connectTimeoutMs?: number;
  /**
   * Longest tool call, wall clock (ms; progress notifications do not extend it), unless the
   * server or the run gives its own.
   * @default the worker's `MCP_TOOL_TIMEOUT`, else 900000
   */
  toolTimeoutMs?: number;
  /** A connection unused this long is closed (ms). @default 600000 */
  idleMs?: number;
}

/** Thrown by {@link McpClientPool.connect} when a server does not start; `stderr` is its own output. */
export class McpServerStartError extends Error {
  override readonly name = 'McpServerStartError';
  constructor(
    readonly server: string,
    readonly reason: string,
    readonly stderr: string,
  ) {
    super(`MCP server "${server}" failed to start: ${reason}${stderr ? `\nserver stderr:\n${stderr}` : ''}`);
  }
}

/** Thrown by {@link McpClientPool.callTool} when the server's connection closed during the call. */
export class McpServerDiedError extends Error {
  override readonly name = 'McpServerDiedError';
  constructor(
    readonly server: string,
    readonly stderr: string,
  ) {
    super(
      `MCP server "${server}" stopped while the tool was running (Connection closed); it is restarted for the next call.` +
        (stderr ? `\nserver stderr:\n${stderr}` : ''),
    );
  }
}

/** Thrown by {@link McpClientPool.callTool} when a call outlives its timeout; the message is Claude Code's. */
export class McpToolTimeoutError extends Error {
  override readonly name = 'McpToolTimeoutError';
  constructor(
    readonly server: string,
    readonly tool: string,
    readonly timeoutMs: number,
  ) {
    super(`MCP server "${server}" tool "${tool}" timed out after ${Math.floor(timeoutMs / 1000)}s`);
  }
}

/** The MCP SDK's request timeout (`McpError` with code -32001, `RequestTimeout`). */
function isRequestTimeout(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === -32001;
}

interface Connection {
  key: string;
  server: string;
  client: Client;
  closed: boolean;
  stderr: string;
  lastUsed: number;
  /** Calls in flight (an idle check never closes a busy connection). */
  busy: number;
  tools?: Tool[];
}

/** A pool of MCP client connections, one per server config and working directory. */
export class McpClientPool {
  private readonly conns = new Map<string, Promise<Connection>>();
  private readonly env: NodeJS.ProcessEnv;
  private readonly connectTimeoutMs: number;
  private readonly toolTimeoutMs: number;
  private readonly idleMs: number;
  private sweeper: NodeJS.Timeout | undefined;
  /** Servers started so far (restarts included): for tests and metrics. */
  starts = 0;

  constructor(opts: McpClientPoolOptions = {}) {
    this.env = opts.env ?? process.env;
    // The worker's own MCP_TOOL_TIMEOUT / MCP_TIMEOUT (a bad value is ignored here: runs check theirs).
    let workerEnv: McpTimeouts = {};
    try {
      workerEnv = mcpTimeoutsFromEnv(this.env);
    } catch {
      workerEnv = {};
    }
    this.connectTimeoutMs = opts.connectTimeoutMs ?? workerEnv.connectMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS;
    this.toolTimeoutMs = opts.toolTimeoutMs ?? workerEnv.toolMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS;
    this.idleMs = opts.idleMs ?? 600_000;
  }

  /** Key of a connection: the server's name, its config (unexpanded) and the working directory. */
  static keyOf(server: string, config: McpServerConfig, cwd: string): string {
    return configHash({ server, config, cwd });
  }

  /**
   * A live connection to the server, started if there is none or the last one died.
   * @throws McpServerStartError (with the server's stderr) when it does not start
   */
  private async connection(
    server: string,
    config: McpServerConfig,
    cwd: string,
    connectMs = this.connectTimeoutMs,
  ): Promise<Connection> {
    const key = McpClientPool.keyOf(server, config, cwd);
    const existing = this.conns.get(key);
    if (existing) {
      const c = await existing.catch(() => undefined);
      if (c && !c.closed) {
        c.lastUsed = Date.now();
        return c;
      }
      if (this.conns.get(key) === existing) this.conns.delete(key);
    }
    const started = this.start(key, server, config, cwd, connectMs);
    this.conns.set(key, started);
    started.catch(() => {
      if (this.conns.get(key) === started) this.conns.delete(key);
    });
    this.armSweeper();
    return started;
  }

  private async start(
    key: string,
    server: string,
    config: McpServerConfig,
    cwd: string,
    connectMs: number,
  ): Promise<Connection> {
    this.starts++;
    let expanded: McpServerConfig;
    try {
      expanded = expandServerConfig(server, config, this.env);
    } catch (e) {
      throw new McpServerStartError(server, (e as Error).message, '');
    }
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const conn: Connection = {
      key,
      server,
      client: new Client({ name: 'agent-runner', version: RUNNER_VERSION }),
      closed: false,
      stderr: '',
      lastUsed: Date.now(),
      busy: 0,
    };
    let transport: Transport;
    if (isRemoteServer(expanded)) {
      const url = new URL(expanded.url);
      const requestInit = expanded.headers ? { headers: expanded.headers } : undefined;
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      transport =
        expanded.type === 'sse'
          ? new SSEClientTransport(url, requestInit ? { requestInit } : {})
          : new StreamableHTTPClientTransport(url, requestInit ? { requestInit } : {});
    } else {
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const stdio = new StdioClientTransport({
        command: expanded.command,
        args: expanded.args ?? [],
        env: mcpServerEnv(expanded.env, this.env),
        cwd,
        stderr: 'pipe',
      });
      stdio.stderr?.on('data', (chunk: Buffer | string) => {
        conn.stderr = (conn.stderr + chunk.toString()).slice(-STDERR_TAIL_BYTES);
      });
      transport = stdio;
    }
    conn.client.onclose = () => {
      conn.closed = true;
    };
    try {
      await conn.client.connect(transport, { timeout: connectMs });
    } catch (e) {
      conn.closed = true;
      await conn.client.close().catch(() => undefined);
      // The child's last stderr lines may arrive just after its pipe closed.
      await new Promise((r) => setTimeout(r, 50));
      const reason = isRequestTimeout(e)
        ? `it did not answer initialize within ${connectMs} ms (MCP_TIMEOUT)`
        : errorText(e);
      throw new McpServerStartError(server, reason, conn.stderr.trim());
    }
    return conn;
  }

  /**
   * Tools of a server (listed once per connection). `timeouts.connectMs` (the run's `MCP_TIMEOUT`)
   * bounds the start and the listing.
   * @throws McpServerStartError
   */
  async listTools(server: string, config: McpServerConfig, cwd: string, timeouts: McpTimeouts = {}): Promise<Tool[]> {
    const connectMs = timeouts.connectMs ?? this.connectTimeoutMs;
    const conn = await this.connection(server, config, cwd, connectMs);
    if (!conn.tools) {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await conn.client.listTools(cursor ? { cursor } : {}, { timeout: connectMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      conn.tools = tools;
    }
    return conn.tools;
  }

  /**
   * Calls a tool, for at most the server's `timeout`, else the run's `MCP_TOOL_TIMEOUT`
   * (`opts.timeouts`), else the pool's (wall clock: progress does not extend it, as in Claude
   * Code). A call whose server dies meanwhile throws {@link McpServerDiedError}; the next call
   * starts the server again.
   * @throws McpToolTimeoutError past the timeout; McpServerStartError, McpServerDiedError, or the protocol error of the server
   */
  async callTool(
    server: string,
    config: McpServerConfig,
    cwd: string,
    tool: string,
    args: Record<string, unknown>,
    opts: { signal?: AbortSignal; onProgress?: () => void; timeouts?: McpTimeouts } = {},
  ): Promise<CallToolResult> {
    const conn = await this.connection(server, config, cwd, opts.timeouts?.connectMs ?? this.connectTimeoutMs);
    const timeoutMs = mcpToolTimeoutMs(config, opts.timeouts?.toolMs, this.toolTimeoutMs);
    conn.busy++;
    try {
      const result = await conn.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: timeoutMs,
        resetTimeoutOnProgress: false,
        ...(opts.onProgress ? { onprogress: () => opts.onProgress?.() } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      return result as CallToolResult;
    } catch (e) {
      if (conn.closed && !opts.signal?.aborted) {
        await new Promise((r) => setTimeout(r, 50));
        throw new McpServerDiedError(server, conn.stderr.trim());
      }
      if (isRequestTimeout(e)) throw new McpToolTimeoutError(server, tool, timeoutMs);
      throw e;
    } finally {
      conn.busy--;
      conn.lastUsed = Date.now();
    }
  }

  private armSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(
      () => {
        void this.sweep();
      },
      Math.max(1000, Math.min(this.idleMs, 60_000)),
    );
    this.sweeper.unref();
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const [key, p] of [...this.conns]) {
      const c = await p.catch(() => undefined);
      if (!c) continue;
      if (c.closed || (c.busy === 0 && now - c.lastUsed >= this.idleMs)) {
        if (this.conns.get(key) === p) this.conns.delete(key);
        await c.client.close().catch(() => undefined);
      }
    }
    if (this.conns.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** Number of open connections. */
  get size(): number {
    return this.conns.size;
  }

  /** Closes every connection (stdio servers are stopped). */
  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    const all = [...this.conns.values()];
    this.conns.clear();
    await Promise.all(
      all.map(async (p) => {
        const c = await p.catch(() => undefined);
        await c?.client.close().catch(() => undefined);
      }),
    );
  }
}

function errorText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ENOENT') return `command not found (${err.message})`;
  return e instanceof Error ? e.message : String(e);
}
