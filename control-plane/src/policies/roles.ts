/*
 * The role rules of spec §6: one definition in @devplein/contract/roles, which the web's menus
 * use too (so the web hides exactly what these policies refuse, activation included).
 */
export { canSeeLevels, firstTeamId, isAdmin, isAdminDeveloper, isDeveloper, isFirstTeamOneMember, isVerified, roleOf, type Role } from '@devplein/contract/roles';
