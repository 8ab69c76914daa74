/**
 * Setup project: sign in once through the sign-in page as the first admin and save the
 * session cookie (storageState) that every other spec reuses. The admin's credentials are
 * the `username:password` file `make run` writes to the data folder (scripts/test.sh passes
 * it as SUBFLOW_ADMIN_CREDENTIALS).
 */
import { expect, test as setup } from "@playwright/test";
import { AUTH_FILE, adminCredentials } from "./helpers";

setup("sign in as the first admin", async ({ page }) => {
  const { username, password } = adminCredentials();
  await page.goto("/");
  // signed out: the app shows the sign-in page, not the scenarios
  await expect(page.getByRole("heading", { name: "Sign in to Subflow" })).toBeVisible();
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert")).toHaveText("Wrong username or password.");
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("account-name")).toHaveText(username);
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === "subflow_session");
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe("Strict");
  await page.context().storageState({ path: AUTH_FILE });
});
