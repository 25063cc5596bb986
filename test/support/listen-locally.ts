import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListeningServer {
  /** http://127.0.0.1:<port>, without a trailing slash. */
  baseUrl: string;
  /** Ends every open connection too, so a test never waits on a client's keep-alive. */
  close(): Promise<void>;
}

/** Starts a node:http server on a free port of the loopback interface. */
export async function listenLocally(server: Server): Promise<ListeningServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
