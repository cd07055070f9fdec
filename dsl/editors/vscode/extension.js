// Starts `cardsmith lsp` (the language server, on stdio) for .cards files.
// Everything the editor shows (errors, hover, completion, ...) comes from the server; this file
// only launches it. The command can be changed with the setting `cardsmith.command`.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("cardsmith").get("command", ["cardsmith", "lsp"]);
  const server = { command: command[0], args: command.slice(1) };
  client = new LanguageClient(
    "cardsmith",
    "cardsmith",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "cards" }, { scheme: "untitled", language: "cards" }] }
  );
  client.start();
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
