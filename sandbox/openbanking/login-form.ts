import { type Html, html } from '../../api/shared/html.ts';

/** The sandbox banks' log-in form (every SCA page asks the same), with an alert above it when given. */
export const loginFields = (action: string, alert?: string): Html =>
  html`${alert ? html`<p class="alert" role="alert">${alert}</p>` : ''}
<form method="post" action="${action}">
<label for="psuId">User ID</label>
<input id="psuId" name="psuId" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>`;
