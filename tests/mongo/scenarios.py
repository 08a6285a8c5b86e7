#!/usr/bin/python3
"""A scripted MongoDB server for the MongoDB store's wire-level tests (and the CLI's).

    /usr/bin/python3 scenarios.py SCENARIO RECORD_FILE

Starts a mockupdb server on 127.0.0.1, prints its port on stdout, and serves until stdin
closes. Every request it receives is appended to RECORD_FILE as one JSON line,
{"command": name, "doc": the command in relaxed Extended JSON}, before it is answered, so
the client can read what it sent as soon as its call returns. Replies follow the scenario:
a list of replies per command (optionally per "command:collection"), used in order with
the last one repeating; unscripted commands get a plausible default (ok, empty cursors,
one document matched).

"run" serves a whole `migronaut up` on an empty database: an empty changelog, the lock
taken by the first upsert, every renewal and fence matched, every command accepted.

The lock acquire is a findAndModify whose update pipeline installs the claim; a scripted
reply CLAIMED to a find on the lock collection answers with that claim as the acquire
installed it (the run's owner and nonce are random, so no fixed reply could match them).
"""
import datetime
import json
import os
import sys
import threading

from bson import Int64, json_util
from bson.json_util import RELAXED_JSON_OPTIONS
from mockupdb import MockupDB

LOCKS = "_migronaut_locks"
CHANGELOG = "_migronaut_migrations"
NOW = datetime.datetime(2026, 1, 2, 3, 4, 5, 678000)


def ok(**fields):
    return dict(ok=1, **fields)


def command_error(code, code_name, message):
    return {"ok": 0, "code": code, "codeName": code_name, "errmsg": message}


MATCHED = ok(n=1, nModified=1)
MATCHED_NONE = ok(n=0, nModified=0)
DUPLICATE_KEY = ok(n=0, nModified=0, writeErrors=[
    {"index": 0, "code": 11000, "errmsg": "E11000 duplicate key error collection"}])

# findAndModify replies to the acquire: inserted into a free slot, or over `previous`.
ACQUIRE_UPSERTED = ok(value=None, lastErrorObject={"n": 1, "updatedExisting": False,
                                                   "upserted": "migronaut_lock"})


def acquire_found(previous):
    return ok(value=previous, lastErrorObject={"n": 1, "updatedExisting": True})


CLAIMED = "the claim the last acquire installed"


def holder(owner, nonce):
    return {"_id": "migronaut_lock", "lockedAt": NOW - datetime.timedelta(seconds=5),
            "pid": 4242, "host": "peer-host", "executedBy": "peer-user", "owner": owner,
            "nonce": nonce, "ttlMs": 30000, "migration": "20260101000000-users.json",
            "step": 2, "total": 5}


# A holder that stopped renewing two minutes ago, with a 30 s TTL: stale.
def dead_holder():
    return dict(holder("dead-run-0123456789", "dead-nonce"), host="dead-host", pid=31337,
                lockedAt=NOW - datetime.timedelta(minutes=2))


CHANGELOG_RECORDS = [
    {"name": "20260101000000-a.json", "batch": 1, "status": "applied",
     "appliedAt": NOW, "firstAppliedAt": NOW - datetime.timedelta(days=1),
     "duration": 12.0, "checksum": "c1", "environment": "production",
     "executedBy": "alice", "runId": "run-a", "description": "first"},
    {"name": "20260102000000-b.json", "batch": Int64(2), "status": "failed",
     "failedAt": NOW, "error": "boom", "failedChecksum": "c2", "runId": "run-b"},
]

# A migration applied by an earlier run, whose down then fails (see "down-step-fails").
APPLIED_BOOM_DOWN = [
    {"name": "20260101000000-boom-down.json", "batch": 1, "status": "applied",
     "appliedAt": NOW, "firstAppliedAt": NOW, "duration": 3.0, "checksum": "c1",
     "runId": "run-a"},
]

# migrate-mongo's own changelog, as it writes it: fileName, appliedAt, fileHash.
MIGRATE_MONGO_CHANGELOG = [
    {"fileName": "20260101000000-users.js", "appliedAt": NOW - datetime.timedelta(days=2),
     "fileHash": "hash-of-the-js-file"},
]

PRIMARY = {"setName": "rs0", "isWritablePrimary": True, "ismaster": True,
           "secondary": False, "logicalSessionTimeoutMinutes": 30}
STANDALONE = {"isWritablePrimary": True, "ismaster": True}

# name → (server type, replies)
SCENARIOS = {
    "primary": (PRIMARY, {}),
    "standalone": (STANDALONE, {}),
    "run": (PRIMARY, {"findAndModify:" + LOCKS: [ACQUIRE_UPSERTED]}),
    "run-reclaims": (PRIMARY, {"findAndModify:" + LOCKS: [acquire_found(dead_holder())],
                               "find:" + LOCKS: [CLAIMED]}),
    "acquire-upserted": (PRIMARY, {"findAndModify:" + LOCKS: [ACQUIRE_UPSERTED]}),
    "acquire-duplicate": (PRIMARY, {
        "findAndModify:" + LOCKS: [command_error(11000, "DuplicateKey",
                                                 "E11000 duplicate key error collection")],
        "find:" + LOCKS: [[holder("peer-run", "peer-nonce")]]}),
    "acquire-other-nonce": (PRIMARY, {
        "findAndModify:" + LOCKS: [acquire_found(holder("run-1", "peer-nonce"))],
        "find:" + LOCKS: [[holder("run-1", "peer-nonce")]]}),
    "acquire-reclaimed": (PRIMARY, {
        "findAndModify:" + LOCKS: [acquire_found(dead_holder())],
        "find:" + LOCKS: [[holder("run-1", "nonce-1")]]}),
    "renew-lost": (PRIMARY, {"update:" + LOCKS: [MATCHED_NONE]}),
    "force-release": (PRIMARY, {"findAndModify": [
        ok(value=holder("peer-run", "peer-nonce"), lastErrorObject={"n": 1})]}),
    "changelog": (PRIMARY, {"find:" + CHANGELOG: [CHANGELOG_RECORDS]}),
    "changelog-duplicate": (PRIMARY, {"update:" + CHANGELOG: [DUPLICATE_KEY]}),
    "run-renew-lost": (PRIMARY, {"findAndModify:" + LOCKS: [ACQUIRE_UPSERTED],
                                 "update:" + LOCKS: [MATCHED_NONE]}),
    "run-step-fails": (PRIMARY, {"findAndModify:" + LOCKS: [ACQUIRE_UPSERTED],
                                 "boom": [command_error(2, "BadValue", "no such thing as boom")]}),
    "step-fails": (PRIMARY, {"boom": [command_error(2, "BadValue", "no such thing as boom")]}),
    "down-step-fails": (PRIMARY, {"findAndModify:" + LOCKS: [ACQUIRE_UPSERTED],
                                  "find:" + CHANGELOG: [APPLIED_BOOM_DOWN],
                                  "boom": [command_error(2, "BadValue",
                                                         "no such thing as boom")]}),
    "step-transient": (PRIMARY, {"create": [
        dict(command_error(112, "WriteConflict", "write conflict"),
             errorLabels=["TransientTransactionError"]), ok()]}),
    "commit-fails": (PRIMARY, {"commitTransaction": [
        command_error(2, "BadValue", "commit refused by the test")]}),
    "fence-lost": (PRIMARY, {"update:" + LOCKS: [MATCHED_NONE]}),
    "migrate-mongo": (PRIMARY, {"findAndModify:" + LOCKS: [ACQUIRE_UPSERTED],
                                "listCollections": [[{"name": "changelog", "type": "collection"}]],
                                "find:changelog": [MIGRATE_MONGO_CHANGELOG]}),
}


def hello_reply(server_type, port):
    reply = dict(server_type, maxWireVersion=17, minWireVersion=0, helloOk=True,
                 maxBsonObjectSize=16777216, maxMessageSizeBytes=48000000,
                 maxWriteBatchSize=100000, localTime=NOW)
    if "setName" in reply:
        reply.update(hosts=["127.0.0.1:%d" % port], me="127.0.0.1:%d" % port,
                     primary="127.0.0.1:%d" % port)
    return reply


def default_reply(command, request):
    if command == "find":
        return []
    if command == "update":
        return MATCHED
    if command == "delete":
        return ok(n=1)
    if command == "findAndModify":
        # An upsert into an empty collection inserts; anything else finds nothing.
        return ACQUIRE_UPSERTED if request.doc.get("upsert") else ok(
            value=None, lastErrorObject={"n": 0})
    return ok()


def installed_claim(pipeline):
    """The document the acquire pipeline's $cond installs when it takes the lock."""
    claim = pipeline[0]["$replaceWith"]["$cond"][1]

    def value(expression):
        if isinstance(expression, dict) and "$literal" in expression:
            return expression["$literal"]
        return NOW if expression == "$$NOW" else expression
    return {key: value(expression) for key, expression in claim.items()}


class Server:
    def __init__(self, scenario, record_path):
        self.server_type, scripted = SCENARIOS[scenario]
        self.replies = {key: list(values) for key, values in scripted.items()}
        self.record = open(record_path, "a")
        self.mutex = threading.Lock()
        self.claimed = None  # the lock document the last acquire installed
        self.mock = MockupDB(request_timeout=int(1e6))
        self.mock.autoresponds(self.handle)

    def next_reply(self, command, collection, request):
        for key in ("%s:%s" % (command, collection), command):
            queue = self.replies.get(key)
            if queue:
                return queue.pop(0) if len(queue) > 1 else queue[0]
        return default_reply(command, request)

    def handle(self, request):
        command = request.command_name or ""
        doc = request.doc
        with self.mutex:
            line = {"command": command,
                    "doc": json.loads(json_util.dumps(doc, json_options=RELAXED_JSON_OPTIONS))}
            self.record.write(json.dumps(line) + "\n")
            self.record.flush()
            if command.lower() in ("hello", "ismaster"):
                return request.replies(hello_reply(self.server_type, self.mock.port))
            collection = doc.get(command) if isinstance(doc.get(command), str) else ""
            if command == "findAndModify" and isinstance(doc.get("update"), list):
                self.claimed = installed_claim(doc["update"])
            reply = self.next_reply(command, collection, request)
            if reply == CLAIMED:
                reply = [self.claimed] if self.claimed else []
        if isinstance(reply, list):
            database = doc.get("$db", "admin")
            reply = ok(cursor={"id": Int64(0), "ns": "%s.%s" % (database, collection),
                               "firstBatch": reply})
        return request.replies(reply)


def main():
    scenario, record_path = sys.argv[1], sys.argv[2]
    server = Server(scenario, record_path)
    port = server.mock.run()
    print(port, flush=True)
    sys.stdin.read()
    # Every request was recorded before it was answered; nothing is left to flush, and
    # MockupDB.stop() would wait out its accept loop's one-second poll.
    os._exit(0)


if __name__ == "__main__":
    main()
