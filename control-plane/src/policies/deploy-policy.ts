import { forbidden, HttpError } from '../errors.ts';

/*
 * Git deploys (issue 23). Who: the project's members and admins (authorizeProject; anyone else
 * gets 404), the same as its container. What: only an approved project deploys, and only when
 * it has a repository and its image option a web root.
 */

export const DEPLOY_NOT_OFFERED_MESSAGE = 'Git-deploy is niet beschikbaar voor dit project: het heeft geen repository, of de image heeft geen webmap.';
export const DEPLOY_REJECTED_MESSAGE = 'Dit project is afgekeurd: het kan niet worden bijgewerkt. Vraag een docent het project opnieuw goed te keuren.';
export const DEPLOY_AWAITING_MESSAGE = 'Dit project wacht op goedkeuring door een docent: het kan pas worden bijgewerkt als het is goedgekeurd.';

/** Whether git deploy is offered: a repository, and an image option with a web root. */
export const offersGitDeploy = (project: { repro: string | null; webRoot: string | null }): boolean => Boolean(project.repro && project.webRoot);

/** Why a deploy of this project is refused now, or null when it may deploy. */
export function deployRefusal(project: { validated: boolean | null; repro: string | null; webRoot: string | null }): HttpError | null {
  if (project.validated === false) return forbidden(DEPLOY_REJECTED_MESSAGE);
  if (project.validated !== true) return forbidden(DEPLOY_AWAITING_MESSAGE);
  if (!offersGitDeploy(project)) return new HttpError(409, DEPLOY_NOT_OFFERED_MESSAGE);
  return null;
}

/** Throws deployRefusal's answer. */
export function authorizeDeploy(project: { validated: boolean | null; repro: string | null; webRoot: string | null }): void {
  const refusal = deployRefusal(project);
  if (refusal) throw refusal;
}
