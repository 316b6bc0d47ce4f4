/**
 * Demo curriculum for the seed: level categories and their level content, courses and texts
 * (Markdown, Dutch). Plain data; seed.ts inserts it. No course files: those need storage.
 */

export interface SeedCourse {
  title: string;
  texts: ReadonlyArray<{ title: string; body: string }>;
}

export interface SeedLevelContent {
  title: string;
  titleForTeachers: string;
  courses: readonly SeedCourse[];
}

export interface SeedLevelCategory {
  title: string;
  number: number;
  icons: boolean;
  contents: readonly SeedLevelContent[];
}

export const seedCurriculum: readonly SeedLevelCategory[] = [
  {
    title: 'Front-end',
    number: 10,
    icons: true,
    contents: [
      {
        title: 'HTML: de basis',
        titleForTeachers: 'FE1 HTML-structuur en semantiek',
        courses: [
          {
            title: 'Je eerste webpagina',
            texts: [
              {
                title: 'Wat is HTML?',
                body: [
                  '# Wat is HTML?',
                  '',
                  'HTML beschrijft de **structuur** van een webpagina: koppen, alinea\'s, lijsten, links en afbeeldingen.',
                  'De browser leest je HTML en bouwt daar een pagina van.',
                  '',
                  '```html',
                  '<!doctype html>',
                  '<html lang="nl">',
                  '  <head><title>Mijn eerste pagina</title></head>',
                  '  <body><h1>Hallo wereld!</h1></body>',
                  '</html>',
                  '```',
                ].join('\n'),
              },
              {
                title: 'Opdracht: digitaal visitekaartje',
                body: [
                  '## Opdracht',
                  '',
                  'Maak een pagina `index.html` met:',
                  '',
                  '1. een kop met je naam;',
                  '2. een korte alinea over jezelf;',
                  '3. een lijst met drie hobby\'s;',
                  '4. een link naar je favoriete website.',
                  '',
                  'Lever de link naar je repository in bij je docent.',
                ].join('\n'),
              },
            ],
          },
          {
            title: 'Semantische elementen',
            texts: [
              {
                title: 'header, main en footer',
                body: [
                  'Gebruik elementen die zeggen **wat** iets is, niet hoe het eruitziet:',
                  '',
                  '- `<header>` voor de kop van de pagina',
                  '- `<nav>` voor het menu',
                  '- `<main>` voor de hoofdinhoud',
                  '- `<footer>` voor de voettekst',
                  '',
                  'Schermlezers en zoekmachines begrijpen je pagina dan veel beter.',
                ].join('\n'),
              },
            ],
          },
        ],
      },
      {
        title: 'CSS: opmaak',
        titleForTeachers: 'FE2 CSS-selectors en box model',
        courses: [
          {
            title: 'Selectors en kleuren',
            texts: [
              {
                title: 'Een stylesheet koppelen',
                body: [
                  'Zet je CSS in een apart bestand en koppel het in de `<head>`:',
                  '',
                  '```html',
                  '<link rel="stylesheet" href="style.css">',
                  '```',
                  '',
                  'Met een selector kies je welke elementen een regel krijgen, bijvoorbeeld `h1`, `.kaart` of `#menu`.',
                ].join('\n'),
              },
              {
                title: 'Opdracht: huisstijl',
                body: 'Geef je visitekaartje een eigen huisstijl: kies twee kleuren en één lettertype en gebruik ze overal.',
              },
            ],
          },
          {
            title: 'Het box model',
            texts: [
              {
                title: 'margin, border en padding',
                body: [
                  'Elk element is een doos met vier lagen: *content*, *padding*, *border* en *margin*.',
                  '',
                  '```css',
                  '* { box-sizing: border-box; }',
                  '```',
                  '',
                  'Met `box-sizing: border-box` telt de breedte padding en border mee; dat rekent veel makkelijker.',
                ].join('\n'),
              },
            ],
          },
        ],
      },
      {
        title: 'Flexbox en grid',
        titleForTeachers: 'FE3 Layout met flexbox en grid',
        courses: [
          {
            title: 'Layouts bouwen',
            texts: [
              {
                title: 'Flexbox',
                body: 'Flexbox zet elementen in **één richting** naast of onder elkaar. Begin met `display: flex;` op de ouder en speel met `justify-content` en `align-items`.',
              },
              {
                title: 'Grid',
                body: 'Grid werkt in **twee richtingen**. `grid-template-columns: repeat(3, 1fr);` maakt drie even brede kolommen.',
              },
            ],
          },
        ],
      },
      {
        title: 'JavaScript: de basis',
        titleForTeachers: 'FE4 JS-variabelen, functies en lussen',
        courses: [
          {
            title: 'Programmeren in de browser',
            texts: [
              {
                title: 'Variabelen en functies',
                body: [
                  '```js',
                  'const naam = "Sam";',
                  'function begroet(wie) {',
                  '  return `Hoi ${wie}!`;',
                  '}',
                  'console.log(begroet(naam));',
                  '```',
                  '',
                  'Gebruik `const` tenzij de waarde verandert; dan gebruik je `let`.',
                ].join('\n'),
              },
              {
                title: 'Opdracht: rekenmachine',
                body: 'Schrijf functies `optellen`, `aftrekken`, `vermenigvuldigen` en `delen`. Wat doet jouw `delen` als je door 0 deelt?',
              },
            ],
          },
        ],
      },
      {
        title: 'De DOM en events',
        titleForTeachers: 'FE5 DOM-manipulatie en events',
        courses: [
          {
            title: 'Interactie',
            texts: [
              {
                title: 'Elementen zoeken en aanpassen',
                body: 'Met `document.querySelector(".knop")` vind je een element; met `addEventListener("click", ...)` reageer je op een klik.',
              },
            ],
          },
        ],
      },
      {
        title: 'Responsive design',
        titleForTeachers: 'FE6 Media queries en mobile first',
        courses: [
          {
            title: 'Mobile first',
            texts: [
              {
                title: 'Media queries',
                body: [
                  'Ontwerp eerst voor de telefoon en voeg daarna regels toe voor grotere schermen:',
                  '',
                  '```css',
                  '@media (min-width: 768px) {',
                  '  .kaarten { grid-template-columns: repeat(2, 1fr); }',
                  '}',
                  '```',
                ].join('\n'),
              },
            ],
          },
        ],
      },
    ],
  },
  {
    title: 'Back-end',
    number: 8,
    icons: false,
    contents: [
      {
        title: 'PHP: de basis',
        titleForTeachers: 'BE1 PHP-syntax',
        courses: [
          {
            title: 'Hallo PHP',
            texts: [
              {
                title: 'Je eerste script',
                body: [
                  '```php',
                  '<?php',
                  '$naam = "wereld";',
                  'echo "Hallo $naam!";',
                  '```',
                  '',
                  'Zet dit in `index.php` in je docker en open je domein in de browser.',
                ].join('\n'),
              },
              {
                title: 'Arrays en lussen',
                body: 'Een array bewaar je zo: `$vakken = ["HTML", "CSS", "PHP"];`. Met `foreach ($vakken as $vak)` loop je er doorheen.',
              },
            ],
          },
        ],
      },
      {
        title: 'Formulieren verwerken',
        titleForTeachers: 'BE2 GET/POST en validatie',
        courses: [
          {
            title: 'Formulieren',
            texts: [
              {
                title: 'GET of POST?',
                body: 'Gebruik **GET** om iets op te vragen (zoeken) en **POST** om iets te veranderen (opslaan). Vertrouw nooit invoer van de gebruiker: controleer alles op de server.',
              },
            ],
          },
        ],
      },
      {
        title: 'Databases met PDO',
        titleForTeachers: 'BE3 PDO en prepared statements',
        courses: [
          {
            title: 'Veilig met de database praten',
            texts: [
              {
                title: 'Prepared statements',
                body: [
                  '```php',
                  '$stmt = $pdo->prepare("SELECT * FROM producten WHERE id = ?");',
                  '$stmt->execute([$id]);',
                  '```',
                  '',
                  'Plak invoer **nooit** zelf in je SQL: zo voorkom je SQL-injectie.',
                ].join('\n'),
              },
            ],
          },
        ],
      },
      {
        title: 'Laravel: eerste stappen',
        titleForTeachers: 'BE4 Laravel-routing en Blade',
        courses: [
          {
            title: 'Routes en views',
            texts: [
              {
                title: 'Een route maken',
                body: 'In `routes/web.php` koppel je een adres aan een controller. Een Blade-view toont de gegevens met `{{ $product->naam }}`.',
              },
            ],
          },
        ],
      },
    ],
  },
  {
    title: 'Projecten',
    number: 16,
    icons: false,
    contents: [
      {
        title: 'Portfolio',
        titleForTeachers: 'P1 Persoonlijk portfolio',
        courses: [
          {
            title: 'Je portfolio online',
            texts: [
              {
                title: 'Wat moet erin?',
                body: 'Een korte introductie, je beste drie projecten met uitleg en een contactpagina. Zet het online via een docker en zet hem op zichtbaar.',
              },
            ],
          },
        ],
      },
      {
        title: 'Webshop',
        titleForTeachers: 'P2 Webshop in teamverband',
        courses: [
          {
            title: 'Samenwerken met git',
            texts: [
              {
                title: 'Branches',
                body: 'Werk elke taak uit in een eigen branch en maak een merge request. Een teamgenoot reviewt je code voordat hij in `main` komt.',
              },
              {
                title: 'Scrum',
                body: 'Plan elke sprint van twee weken op het scrumbord. Houd dagelijks een korte stand-up van maximaal tien minuten.',
              },
            ],
          },
        ],
      },
      {
        title: 'Kantine-app',
        titleForTeachers: 'P3 Echte opdrachtgever: de kantine',
        courses: [
          {
            title: 'Werken voor een opdrachtgever',
            texts: [
              {
                title: 'Het intakegesprek',
                body: 'Bereid vragen voor: wie gebruikt de app, wat moet hij kunnen, en wanneer is hij af? Maak een verslag en laat het de opdrachtgever goedkeuren.',
              },
            ],
          },
        ],
      },
    ],
  },
  {
    title: 'Databases',
    number: 5,
    icons: true,
    contents: [
      {
        title: 'SQL: gegevens opvragen',
        titleForTeachers: 'DB1 SELECT, WHERE en ORDER BY',
        courses: [
          {
            title: 'Je eerste query',
            texts: [
              {
                title: 'SELECT',
                body: '```sql\nSELECT naam, prijs FROM producten WHERE prijs < 10 ORDER BY naam;\n```',
              },
            ],
          },
        ],
      },
      {
        title: 'Joins',
        titleForTeachers: 'DB2 JOINs en relaties',
        courses: [
          {
            title: 'Tabellen combineren',
            texts: [
              {
                title: 'INNER JOIN',
                body: 'Met een `JOIN` combineer je rijen uit twee tabellen op een gemeenschappelijke kolom, bijvoorbeeld bestellingen met hun klant.',
              },
            ],
          },
        ],
      },
      {
        title: 'Normaliseren',
        titleForTeachers: 'DB3 Normaalvormen',
        courses: [
          {
            title: 'Een goed datamodel',
            texts: [
              {
                title: 'Waarom normaliseren?',
                body: 'Sla elk gegeven maar op één plek op. Dan hoef je het ook maar op één plek aan te passen.',
              },
            ],
          },
        ],
      },
    ],
  },
];
