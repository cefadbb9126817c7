import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeBackend } from "./support/fake-backend.js";
import { type HttpFixture, initializeBody, startFixture, TOKENS } from "./support/http-fixture.js";

let fixture: HttpFixture;
const ran: string[] = [];

beforeAll(async () => {
  fixture = await startFixture(
    fakeBackend((tool) => {
      ran.push(tool);
      return { project_revision: 1 };
    }),
  );
});
afterAll(async () => {
  await fixture?.close();
});

/** POSTs a raw body with a valid token; returns the status and the parsed JSON answer. */
async function post(body: string): Promise<{ status: number; json: unknown }> {
  const res = await fixture.send({
    token: TOKENS.engineering,
    body,
  });
  return { status: res.status, json: res.body === "" ? undefined : JSON.parse(res.body) };
}

const invalid = (message: string, id: string | number | null = null) => ({
  status: 400,
  json: { jsonrpc: "2.0", error: { code: -32600, message: `Invalid Request: ${message}` }, id },
});

const listProjects = JSON.stringify({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "awr_projects_list", arguments: {} },
});

describe("the shared HTTP service's JSON-RPC checks", () => {
  it("answers JSON that is not a JSON-RPC 2.0 message with -32600 saying what is wrong", async () => {
    const cases: [string, ReturnType<typeof invalid>][] = [
      [
        '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
        invalid('jsonrpc must be "2.0"; got "1.0".', 1),
      ],
      [
        '{"id":1,"method":"tools/list"}',
        invalid('jsonrpc must be "2.0"; the member is missing.', 1),
      ],
      [
        '{"jsonrpc":"2.0","id":null,"method":"tools/list"}',
        invalid("id must be a string or an integer; MCP does not allow null."),
      ],
      [
        '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
        invalid("id must be a string or an integer; got an object."),
      ],
      [
        '{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}',
        invalid("id must be a string or an integer; got a fractional number."),
      ],
      [
        '{"jsonrpc":"2.0","id":3}',
        invalid("method is missing; a request or notification names the method it calls.", 3),
      ],
      [
        '{"jsonrpc":"2.0","id":"a","method":5}',
        invalid("method must be a string; got a number.", "a"),
      ],
      [
        '{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[1]}',
        invalid("params must be an object; got an array.", 4),
      ],
      [
        '{"jsonrpc":"2.0","id":5,"method":"tools/list","colour":"blue"}',
        invalid(
          "1 unknown member (their names are not repeated); a message has only jsonrpc, id, method, params, result, error.",
          5,
        ),
      ],
      [
        '{"jsonrpc":"2.0","id":6,"method":"ping","result":{}}',
        invalid(
          "a message has method (a request or notification) or result/error (a response), never both.",
          6,
        ),
      ],
      ["42", invalid("the body must be one JSON-RPC 2.0 message (a JSON object); got a number.")],
      ["null", invalid("the body must be one JSON-RPC 2.0 message (a JSON object); got null.")],
    ];
    for (const [body, answer] of cases) {
      expect({ body, ...(await post(body)) }).toEqual({ body, ...answer });
    }
    expect(ran).toEqual([]);
  });

  it("refuses every batch: the protocol (2025-06-18 and later) has none", async () => {
    const batch = invalid(
      "batches are not supported in this protocol version; send each JSON-RPC message in its own POST.",
    );
    expect(await post(`[${initializeBody},${listProjects}]`)).toEqual(batch);
    expect(await post(`[${listProjects},{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`)).toEqual(
      batch,
    );
    expect(await post(`[${listProjects}]`)).toEqual(batch);
    expect(await post("[]")).toEqual(invalid("an empty batch."));
    expect(ran).toEqual([]);
  });

  it("keeps -32700 for a body that is not JSON, and serves valid messages as before", async () => {
    expect(await post('{"jsonrpc":"2.0","id":1,')).toEqual({
      status: 400,
      json: {
        jsonrpc: "2.0",
        error: { code: -32700, message: "Parse error: the body is not JSON." },
        id: null,
      },
    });
    expect((await post(initializeBody)).status).toBe(200);
    expect(await post(listProjects)).toMatchObject({
      status: 200,
      json: { id: 7, result: { isError: false } },
    });
    expect((await post('{"jsonrpc":"2.0","method":"notifications/initialized"}')).status).toBe(202);
    expect((await post('{"jsonrpc":"2.0","id":1,"result":{}}')).status).toBe(202);
    expect((await post('{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}')).status).toBe(
      202,
    );
  });
});
