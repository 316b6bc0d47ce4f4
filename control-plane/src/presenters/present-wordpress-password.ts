/** A new WordPress administrator password, shown once (POST /api/wordpress/passwordreset/{project}). */
export function presentWordpressPassword(reset: { username: string; password: string }): { username: string; password: string } {
  return { username: reset.username, password: reset.password };
}
