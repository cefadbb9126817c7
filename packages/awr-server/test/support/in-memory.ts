import { createAwrServer, type ToolHost } from "@awr/awr-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";

/** An MCP client connected in memory to a new AWR server for `host`; the caller closes it. */
export async function connectInMemory(host: ToolHost): Promise<Client> {
  const server = createAwrServer(host);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(b);
  return client;
}
