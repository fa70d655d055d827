/** The sign-in page's script (bundled into hosted/scripts.generated.ts by `npm run hosted-scripts`): asks for the e-mailed link. */
import { byId, type ErrorBody, pagePath, postJson } from "./dom.ts";

const form = byId<HTMLFormElement>("sign-in-form");
const input = byId<HTMLInputElement>("sign-in-email");
const status = byId("sign-in-status");
const endpoint = `${pagePath()}/sign-in`;
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  status.textContent = "Sending…";
  try {
    const response = await postJson(endpoint, { email: input.value });
    const body = (await response.json()) as { data: { message: string } } & ErrorBody;
    status.textContent = response.ok ? body.data.message : body.error ? body.error.message : "That did not work. Try again.";
  } catch {
    status.textContent = "That did not work. Try again.";
  }
});
